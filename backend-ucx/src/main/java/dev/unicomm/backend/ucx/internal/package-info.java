/**
 * The ucx backend's insides: the UCP context and worker, endpoints to peers, the heap, RMA, teams, the
 * transfer endpoints and the availability probe, and the only callers of the native UCP binding
 * ({@code Ucp}). Nothing outside backend-ucx may depend on it.
 */
package dev.unicomm.backend.ucx.internal;
