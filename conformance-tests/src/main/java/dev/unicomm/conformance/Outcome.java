package dev.unicomm.conformance;

/** How one rank finished one rule. */
public enum Outcome {
    /** The body returned normally. */
    PASSED,
    /** The body threw: an assertion, or any other exception. */
    FAILED,
    /** The body was skipped by an assumption (the message says why). */
    SKIPPED,
    /** The worker JVM exited while running the rule. */
    DIED,
    /** The rank did not report within the rule's limit (it was then killed). */
    HUNG
}
