package dev.unicomm.conformance;

import org.opentest4j.TestAbortedException;

/**
 * The one way a rule body may skip a <em>required</em> rule: the rule does not apply to this job or
 * platform (too few ranks, no {@code /proc}), which says nothing about the backend. Any other skip of a
 * required rule (a JUnit assumption, a missing capability) fails it: required means required.
 */
public final class NotApplicable extends TestAbortedException {
    private static final long serialVersionUID = 1L;

    /** How the reason of a rule skipped for too few ranks begins (the report recognises it). */
    public static final String TOO_FEW_RANKS = "not applicable with ";

    private NotApplicable(String reason) {
        super(reason);
    }

    /** Skips the rule unless the job has at least {@code n} ranks. */
    public static void unlessRanks(int size, int n, String why) {
        if (size < n) throw new NotApplicable(TOO_FEW_RANKS + size + " ranks (needs " + n + "): " + why);
    }

    /** Skips the rule unless {@code platformHasIt}; for what the platform lacks, never for what the backend lacks. */
    public static void unlessPlatform(boolean platformHasIt, String what) {
        if (!platformHasIt) throw new NotApplicable("not applicable on this platform: " + what);
    }
}
