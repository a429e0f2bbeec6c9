package dev.unicomm.conformance.planted;

import dev.unicomm.api.Rma;
import dev.unicomm.api.SignalOp;
import java.util.HashMap;
import java.util.Map;

/**
 * Planted fault (§5.1 "atomic with respect to every other atomic and signal update on the same word"): a
 * signal ADD is emulated as a SET of a running total the origin keeps per word, so it overwrites the
 * atomics (and other PEs' signals) that reached the word meanwhile.
 */
public final class SignalCountedAtOriginProvider extends EngineProvider {
    public static final String NAME = "shm-signal-counted-at-origin";

    public SignalCountedAtOriginProvider() {
        super(NAME, Engine::new);
    }

    static final class Engine extends SlowPutEngine {
        private final Map<String, Long> totals = new HashMap<>();

        Engine(Rma raw) {
            super(raw);
        }

        @Override
        protected void putSignal(SignalPut c, boolean nbi) {
            long total;
            synchronized (this) {
                String k = c.pe() + "@" + (c.signal().offset() + c.signalOffset());
                total = c.op() == SignalOp.ADD ? totals.getOrDefault(k, 0L) + c.value() : c.value();
                totals.put(k, total);
            }
            super.putSignal(c.withSignal(total, SignalOp.SET), nbi);
        }
    }
}
