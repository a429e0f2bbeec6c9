/**
 * The {@code ascend} backend: symmetric heaps, RMA (blocking, non-blocking, stream-ordered),
 * put-with-signal, wait-until, teams and ACL device memory over Ascend SHMEM. Collectives and MoE
 * come from the portable implementations (module {@code collectives}).
 *
 * <p>Verification status: this code has run against {@code libascend_standin_test_double}, a test
 * double on host shared memory built from the test sources, never against Ascend hardware or the
 * real CANN / Ascend SHMEM libraries.
 */
package dev.unicomm.backend.ascend;
