/**
 * unicomm's user API: communicators, symmetric heaps, one-sided RMA, teams, collectives,
 * point-to-point endpoints and MoE expert-parallel dispatch/combine.
 *
 * <p>Start with {@link dev.unicomm.api.Unicomm#connect()}. Every call on these types is checked
 * in Java before it reaches a backend: bad arguments give {@link java.lang.IllegalArgumentException},
 * {@link java.lang.IndexOutOfBoundsException} or {@link java.lang.IllegalStateException} (closed
 * objects) with a message saying what was wrong and what is allowed.
 *
 * <p>Process model: one PE (processing element, rank) per OS process. Calls marked
 * <em>collective</em> must be made by every PE of the communicator (or team), in the same order.
 */
package dev.unicomm.api;
