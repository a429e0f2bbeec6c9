package dev.unicomm.conformance.planted;

import dev.unicomm.api.Rma;
import java.util.ArrayList;
import java.util.List;

/** Planted fault (§2.3 "to every PE"): quiet completes only the puts to the PE targeted last; barriers complete everything. */
public final class QuietDrainsLastTargetProvider extends EngineProvider {
    public static final String NAME = "shm-quiet-drains-last-target";

    public QuietDrainsLastTargetProvider() {
        super(NAME, Engine::new);
    }

    static final class Engine extends SlowPutEngine {
        private volatile int lastPe = -1;

        Engine(Rma raw) {
            super(raw);
        }

        @Override
        protected void enqueue(Op op) {
            lastPe = op.pe();
            super.enqueue(op);
        }

        @Override
        protected List<Op> takeForQuiet() {
            List<Op> all = super.takeForQuiet(), now = new ArrayList<>();
            for (Op op : all) {
                if (op.pe() == lastPe) now.add(op);
                else super.enqueue(op); // the others stay queued, in order
            }
            return now;
        }

        @Override
        protected void completeForBarrier() {
            deliver(super.takeForQuiet());
        }
    }
}
