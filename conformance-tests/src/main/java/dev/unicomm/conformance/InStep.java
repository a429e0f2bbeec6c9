package dev.unicomm.conformance;

/**
 * Keeps a rank in step with the others after one of its checks failed: the failure is kept, the rank goes
 * on through the rule's collective steps (barriers, frees, side-channel replies), and the rule fails at its
 * end with the first failure. A rank that left early would leave its peers waiting for it until the
 * timeout, and the job would need a restart: a failing rule stays as fast as a passing one.
 */
public final class InStep {
    private AssertionError first;

    /** Runs {@code check}, keeping its failure (the first one) for {@link #rethrow()}. */
    public void check(Runnable check) {
        try {
            check.run();
        } catch (AssertionError e) {
            if (first == null) first = e;
        }
    }

    /** Throws the first kept failure, if any. */
    public void rethrow() {
        if (first != null) throw first;
    }
}
