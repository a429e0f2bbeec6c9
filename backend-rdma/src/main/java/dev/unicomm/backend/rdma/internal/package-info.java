/**
 * The rdma backend's insides: devices, protection domains, memory regions, queue pairs and completion
 * queues, the heap, RMA, teams and the transfer endpoints, and the only callers of the native verbs binding
 * ({@code Verbs}). Nothing outside backend-rdma may depend on it.
 */
package dev.unicomm.backend.rdma.internal;
