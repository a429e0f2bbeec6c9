/**
 * JMH micro-benchmarks: the per-call cost of unicomm's API (validation + backend dispatch) on the
 * shared-memory backend, each next to a raw {@code MemorySegment}/{@code VarHandle} reference that
 * does the same memory operation on the same memory, so the ratio is the API's overhead.
 */
package dev.unicomm.benchmarks;
