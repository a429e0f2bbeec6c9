package dev.unicomm.conformance.planted;

import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.SymmetricBuffer;

/** Planted fault (§4.1): put-with-signal updates the signal at once and queues the data behind it, to land at the next completion point. */
public final class SignalBeforeDataProvider extends EngineProvider {
    public static final String NAME = "shm-signal-before-data";

    public SignalBeforeDataProvider() {
        super(NAME, Engine::new);
    }

    static final class Engine extends SlowPutEngine {
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
            put(dst, dstOffset, src, srcOffset, bytes, pe);
            if (op == SignalOp.ADD) raw.atomicAdd(signal, signalOffset, value, pe);
            else raw.atomicSet(signal, signalOffset, value, pe);
        }
    }
}
