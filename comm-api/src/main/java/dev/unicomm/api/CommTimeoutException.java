package dev.unicomm.api;

import java.time.Duration;

/** A wait (barrier, signal, rendezvous, completion) did not finish within its timeout. */
public final class CommTimeoutException extends CommException {
    public CommTimeoutException(String what, Duration timeout) {
        super(what + " did not complete within " + timeout.toMillis()
                + " ms (raise unicomm.timeout / UNICOMM_TIMEOUT if this is expected)");
    }
}
