package dev.unicomm.conformance.planted;

import dev.unicomm.api.Rma;
import dev.unicomm.api.SignalOp;

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
        protected void putSignal(SignalPut c, boolean nbi) {
            put(c.dst(), c.dstOffset(), c.src(), c.srcOffset(), c.bytes(), c.pe());
            if (c.op() == SignalOp.ADD) raw.atomicAdd(c.signal(), c.signalOffset(), c.value(), c.pe());
            else raw.atomicSet(c.signal(), c.signalOffset(), c.value(), c.pe());
        }
    }
}
