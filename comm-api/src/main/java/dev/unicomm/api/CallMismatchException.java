package dev.unicomm.api;

/**
 * The members of a team did not make the same collective call: one skipped it, called another
 * operation, passed other key arguments, or rejected its own arguments. Thrown on every member, so
 * no member's call completes with data the others did not mean to exchange; nothing was exchanged.
 */
public final class CallMismatchException extends IllegalArgumentException {
    private final String operation;
    private final int offendingRank;

    public CallMismatchException(String operation, int offendingRank, String message) {
        super(message);
        this.operation = operation;
        this.offendingRank = offendingRank;
    }

    /** The call this member made (e.g. {@code "moe dispatch"}). */
    public String operation() {
        return operation;
    }

    /** The (team) rank whose call differs from the others', or that rejected its own arguments. */
    public int offendingRank() {
        return offendingRank;
    }
}
