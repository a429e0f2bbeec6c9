package dev.unicomm.conformance.planted;

import dev.unicomm.api.Rma;

/** Planted fault (§2.4): puts are queued, atomics are immediate, and fence orders only the put queue, so atomics after a fence overtake the puts before it. */
public final class AtomicsOvertakePutsProvider extends EngineProvider {
    public static final String NAME = "shm-atomics-overtake-puts";

    public AtomicsOvertakePutsProvider() {
        super(NAME, Engine::new);
    }

    static final class Engine extends SlowPutEngine {
        Engine(Rma raw) {
            super(raw);
        }

        @Override
        public void fence() {
            // the fault: the queue delivers in order anyway, so fence does nothing, forgetting the atomics' path
        }
    }
}
