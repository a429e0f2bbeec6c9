package dev.unicomm.conformance.planted;

import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.SymmetricBuffer;
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
        public void putSignal(
                SymmetricBuffer dst,
                long dstOffset,
                Memory src,
                long srcOffset,
                long bytes,
                SymmetricBuffer signal,
                long signalOffset,
                long value,
                SignalOp op,
                int pe) {
            long total;
            synchronized (this) {
                String k = pe + "@" + (signal.offset() + signalOffset);
                total = op == SignalOp.ADD ? totals.getOrDefault(k, 0L) + value : value;
                totals.put(k, total);
            }
            super.putSignal(dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, total, SignalOp.SET, pe);
        }
    }
}
