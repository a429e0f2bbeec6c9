package dev.unicomm.conformance;

import dev.unicomm.api.CommConfig;
import dev.unicomm.internal.rendezvous.Rendezvous;
import dev.unicomm.spi.Store;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Supplier;
import org.opentest4j.AssertionFailedError;

/**
 * A way for ranks to tell each other things without the backend under test: completion rules use it so
 * that the target learns "quiet has returned" through a path that cannot itself complete or reorder the
 * backend's RMA (a get, a barrier or a signal of the backend could drain a queue and hide the fault).
 * Every wait ends after the job's timeout.
 */
public final class SideChannel implements AutoCloseable {
    private final Store store;
    private final Duration timeout;

    private SideChannel(Store store, Duration timeout) {
        this.store = store;
        this.timeout = timeout;
    }

    static SideChannel open(CommConfig config, Duration timeout) {
        return new SideChannel(Rendezvous.connect(config), timeout);
    }

    /** Publishes {@code key} (with an empty value). Each key is set once per rule. */
    public void tell(String key) {
        tell(key, "");
    }

    /** Publishes {@code key} with {@code value}. */
    public void tell(String key, String value) {
        store.set(key, value.getBytes(StandardCharsets.UTF_8));
    }

    /** Waits until {@code key} is published and returns its value; fails naming {@code key} after the timeout. */
    public String await(String key) {
        try {
            return new String(store.get(key, timeout), StandardCharsets.UTF_8);
        } catch (RuntimeException e) {
            throw new AssertionFailedError(
                    "side channel: '" + key + "' was not published within " + timeout.toMillis() + " ms ("
                            + e.getMessage() + ")",
                    e);
        }
    }

    /**
     * Runs {@code check}, then publishes {@code key} whatever it found, and only then rethrows a failure:
     * the peer waiting for {@code key} finishes the rule instead of waiting out the timeout.
     */
    public void checkThenTell(String key, Runnable check) {
        Throwable failed = null;
        try {
            check.run();
        } catch (AssertionError | RuntimeException e) {
            failed = e;
        }
        tell(key, failed == null ? "ok" : "failed");
        if (failed instanceof RuntimeException re) throw re;
        if (failed != null) throw (AssertionError) failed;
    }

    /** {@link #checkThenTell} for a check that produces a value. */
    public <T> T checkThenTell(String key, Supplier<T> check) {
        Object[] out = new Object[1];
        checkThenTell(key, () -> {
            out[0] = check.get();
        });
        @SuppressWarnings("unchecked")
        T t = (T) out[0];
        return t;
    }

    @Override
    public void close() {
        store.close();
    }
}
