package dev.unicomm.internal.rendezvous;

/**
 * A mistake in how a job was started (its variables, its store address), for the person who
 * started it: one line, so the exception carries no stack trace (its frames are unicomm's own and
 * say nothing about what to fix) and no cause (whose words the message already holds).
 */
public final class LaunchMistake {
    private LaunchMistake() {}

    public static IllegalArgumentException of(String message) {
        IllegalArgumentException e = new IllegalArgumentException(message);
        e.setStackTrace(new StackTraceElement[0]);
        return e;
    }
}
