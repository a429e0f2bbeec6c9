package dev.unicomm.conformance.planted;

import dev.unicomm.api.Rma;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/** Planted fault (§2.3, §2.5 "from any thread"): each thread has its own queue, and quiet and barriers drain only the caller's. */
public final class PerThreadQueuesProvider extends EngineProvider {
    public static final String NAME = "shm-per-thread-queues";

    public PerThreadQueuesProvider() {
        super(NAME, Engine::new);
    }

    static final class Engine extends SlowPutEngine {
        private final ThreadLocal<Deque<Op>> mine = ThreadLocal.withInitial(ArrayDeque::new);

        Engine(Rma raw) {
            super(raw);
        }

        @Override
        protected void enqueue(Op op) {
            mine.get().add(op);
        }

        @Override
        protected List<Op> takeForQuiet() {
            List<Op> ops = new ArrayList<>(mine.get());
            mine.get().clear();
            return ops;
        }
    }
}
