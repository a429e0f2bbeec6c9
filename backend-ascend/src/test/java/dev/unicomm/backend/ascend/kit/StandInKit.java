package dev.unicomm.backend.ascend.kit;

import java.lang.reflect.Method;
import java.util.Map;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What the kit subclasses of this module share: backend {@code ascend} on the stand-in test double
 * (the workers inherit UNICOMM_ASCEND_ACL_LIBRARY / UNICOMM_ASCEND_SHMEM_LIBRARY from the build),
 * 2 ranks, and the rules the backend cannot run, skipped with the reason.
 *
 * <p>Skipped rules open a second communicator in a worker while the suite's communicator is open.
 * Ascend SHMEM keeps one instance per process ({@code aclshmemx_init_attr} refuses a second init),
 * so the ascend backend refuses that with a clear CommException; the stand-in mirrors the library.
 * Open/close cycles and leak checks of one communicator at a time run in
 * {@code dev.unicomm.backend.ascend.MultiProcessStandInTest} instead.
 */
final class StandInKit implements ExecutionCondition {
    static final String BACKEND = "ascend";
    static final int RANKS = 2;

    private static final String ONE_INSTANCE = "needs two ascend communicators open in one process at once; Ascend SHMEM "
            + "runs one instance per process (aclshmemx_init_attr refuses a second init)";

    /** Rule id -> why the ascend backend skips it. */
    static final Map<String, String> SKIPPED = Map.of(
            "required_lifecycle_single_pe_open_close", ONE_INSTANCE,
            "required_lifecycle_close_releases_live_buffers", ONE_INSTANCE,
            "required_lifecycle_open_close_cycles", ONE_INSTANCE,
            "required_lifecycle_no_fd_leak", ONE_INSTANCE,
            "required_lifecycle_no_thread_leak", ONE_INSTANCE,
            "required_lifecycle_no_shared_memory_leak", ONE_INSTANCE,
            "required_badinput_use_after_close", ONE_INSTANCE,
            "required_badinput_foreign_buffer", ONE_INSTANCE,
            "optional_signal_wait_until_times_out", ONE_INSTANCE);

    /** The workers' backend settings: the kit drops inherited UNICOMM_* variables, so they are passed on explicitly. */
    static Map<String, String> environment() {
        Map<String, String> env = new java.util.HashMap<>();
        for (String k : new String[] {"UNICOMM_ASCEND_ACL_LIBRARY", "UNICOMM_ASCEND_SHMEM_LIBRARY"}) {
            String v = System.getenv(k);
            if (v == null) throw new IllegalStateException(k + " is not set: run the kit subclasses through Maven, which builds "
                    + "the stand-in test double and points this variable at it");
            env.put(k, v);
        }
        return env;
    }

    @Override public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        String rule = context.getTestMethod().map(Method::getName).orElse(null);
        if (rule == null || !SKIPPED.containsKey(rule)) return ConditionEvaluationResult.enabled("runs on ascend");
        return ConditionEvaluationResult.disabled("ascend backend: " + SKIPPED.get(rule));
    }
}
