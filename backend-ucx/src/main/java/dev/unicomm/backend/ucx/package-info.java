/**
 * unicomm's UCX backend: {@link dev.unicomm.backend.ucx.UcxBackendProvider}. The bindings to libucp and
 * the communicator live in {@code internal}.
 */
package dev.unicomm.backend.ucx;
