package dev.unicomm.api;

/** Base of unicomm's own exceptions (bad arguments use the JDK's standard exceptions). */
public class CommException extends RuntimeException {
    public CommException(String message) {
        super(message);
    }

    public CommException(String message, Throwable cause) {
        super(message, cause);
    }
}
