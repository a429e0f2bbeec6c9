package dev.unicomm.conformance.planted;

import dev.unicomm.api.Rma;
import dev.unicomm.api.SymmetricBuffer;
import java.util.ArrayList;
import java.util.List;

/** Planted fault (§2.3 "every … atomic"): non-fetching atomics (add, set) are batched and sent only at a barrier; quiet completes puts only. */
public final class DeferredAtomicUpdatesProvider extends EngineProvider {
    public static final String NAME = "shm-deferred-atomic-updates";

    public DeferredAtomicUpdatesProvider() {
        super(NAME, Engine::new);
    }

    static final class Engine extends SlowPutEngine {
        private final List<Runnable> batch = new ArrayList<>();

        Engine(Rma raw) {
            super(raw);
        }

        @Override
        public synchronized void atomicAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
            batch.add(() -> raw.atomicAdd(buf, offset, delta, pe));
        }

        @Override
        public synchronized void atomicSet(SymmetricBuffer buf, long offset, long value, int pe) {
            batch.add(() -> raw.atomicSet(buf, offset, value, pe));
        }

        @Override
        protected void completeForBarrier() {
            quiet();
            List<Runnable> todo;
            synchronized (this) {
                todo = new ArrayList<>(batch);
                batch.clear();
            }
            for (Runnable r : todo) r.run();
            raw.quiet();
        }
    }
}
