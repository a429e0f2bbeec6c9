package dev.unicomm.backend.ascend.kit;

import dev.unicomm.conformance.KitPlug;
import java.util.HashMap;
import java.util.Map;

/**
 * backend-ascend's kit plug: backend {@code ascend} on the stand-in test double (not Ascend hardware; the
 * workers get UNICOMM_ASCEND_ACL_LIBRARY / UNICOMM_ASCEND_SHMEM_LIBRARY from the build), 2 ranks, and the
 * rules the backend cannot run, untested with the reason.
 *
 * <p>Those rules open a second communicator in a worker while the suite's communicator is open. Ascend
 * SHMEM keeps one instance per process ({@code aclshmemx_init_attr} refuses a second init), so the ascend
 * backend refuses that with a clear CommException; the stand-in mirrors the library. Open/close cycles and
 * leak checks of one communicator at a time run in {@code dev.unicomm.backend.ascend.MultiProcessStandInTest}
 * instead.
 */
final class StandInKit {
    private StandInKit() {}

    private static final String ONE_INSTANCE =
            "needs two ascend communicators open in one process at once; Ascend SHMEM "
                    + "runs one instance per process (aclshmemx_init_attr refuses a second init)";

    static final KitPlug PLUG = KitPlug.backend("ascend")
            .ranks(2)
            .workerEnvironment(StandInKit::environment)
            .untested(
                    ONE_INSTANCE,
                    "required_lifecycle_single_pe_open_close",
                    "required_lifecycle_close_releases_live_buffers",
                    "required_lifecycle_open_close_cycles",
                    "required_lifecycle_no_fd_leak",
                    "required_lifecycle_no_thread_leak",
                    "required_lifecycle_no_shared_memory_leak",
                    "required_badinput_use_after_close",
                    "required_badinput_foreign_buffer",
                    "optional_signal_wait_until_times_out");

    /** The workers' backend settings: the kit drops inherited UNICOMM_* variables, so they are passed on explicitly. */
    static Map<String, String> environment() {
        Map<String, String> env = new HashMap<>();
        for (String k : new String[] {"UNICOMM_ASCEND_ACL_LIBRARY", "UNICOMM_ASCEND_SHMEM_LIBRARY"}) {
            String v = System.getenv(k);
            if (v == null)
                throw new IllegalStateException(k + " is not set: run the kit subclasses through Maven, which builds "
                        + "the stand-in test double and points this variable at it");
            env.put(k, v);
        }
        return env;
    }
}
