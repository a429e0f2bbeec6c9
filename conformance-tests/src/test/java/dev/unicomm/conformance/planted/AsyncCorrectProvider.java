package dev.unicomm.conformance.planted;

/** The control: the slow put engine with no fault. Every rule must pass on it (no rule may fail a correct asynchronous backend). */
public final class AsyncCorrectProvider extends EngineProvider {
    public static final String NAME = "shm-async";

    public AsyncCorrectProvider() {
        super(NAME, raw -> {
            SlowPutEngine e = new SlowPutEngine(raw);
            e.startProgress(
                    20); // progress on its own too, as every real engine makes: rules that wait for a signal rely on it
            return e;
        });
    }
}
