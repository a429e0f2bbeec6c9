/**
 * The job's rendezvous store over TCP: {@link dev.unicomm.core.store.StoreServer} (hosted by rank 0),
 * {@link dev.unicomm.core.store.TcpStore} (every rank's connection), and
 * {@link dev.unicomm.core.store.StoreTls} (optional TLS). Shared with other unicomm modules only.
 */
package dev.unicomm.core.store;
