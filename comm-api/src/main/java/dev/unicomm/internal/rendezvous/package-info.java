/**
 * Internal, not API: how the ranks of a job find each other. Rank 0 hosts a
 * {@link dev.unicomm.internal.rendezvous.StoreServer}; every rank connects a
 * {@link dev.unicomm.internal.rendezvous.TcpStore} (optionally over
 * {@link dev.unicomm.internal.rendezvous.StoreTls}); a one-rank job uses a
 * {@link dev.unicomm.internal.rendezvous.LocalStore}. Exported only to unicomm's own modules.
 */
package dev.unicomm.internal.rendezvous;
