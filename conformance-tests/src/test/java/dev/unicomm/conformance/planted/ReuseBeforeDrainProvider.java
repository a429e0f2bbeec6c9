package dev.unicomm.conformance.planted;

import dev.unicomm.api.Rma;

/**
 * Planted fault (§3.3): freeing a buffer does not complete the puts queued to it, and neither does the next
 * allocation, so a late put lands in memory the heap has handed out again (at the next completion point).
 */
public final class ReuseBeforeDrainProvider extends EngineProvider {
    public static final String NAME = "shm-close-skips-rma";

    public ReuseBeforeDrainProvider() {
        super(NAME, Engine::new);
    }

    static final class Engine extends SlowPutEngine {
        Engine(Rma raw) {
            super(raw);
        }

        @Override
        protected void completeBeforeReuse() {
            // the fault: nothing completes the freed buffer's puts before its memory is reused
        }
    }
}
