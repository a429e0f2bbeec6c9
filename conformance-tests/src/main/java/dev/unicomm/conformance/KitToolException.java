package dev.unicomm.conformance;

/**
 * The kit itself could not run a rule (its worker JVMs have no class path, the launcher rejected the job):
 * a failure of the tool, which says nothing about the backend. The report shows it as
 * {@link KitReport.Certification#TOOL_FAILURE}, never as the backend's {@code NOT_CERTIFIED}.
 */
public final class KitToolException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** How the reason of a rule that failed this way begins (the report recognises it). */
    public static final String PREFIX = "kit tool failure: ";

    public KitToolException(String message) {
        super(PREFIX + message);
    }

    public KitToolException(String message, Throwable cause) {
        super(PREFIX + message, cause);
    }
}
