package dev.unicomm.conformance.planted;

import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SymmetricBuffer;

/**
 * Planted fault (§2.3): quiet only orders (the queue stays in issue order, nothing is delivered), but the
 * engine's own get drains the queue first and a put to the calling PE bypasses it, so a check that reads
 * back through get, or puts to itself, cannot see the fault. Barriers deliver.
 */
public final class QuietOrdersGetDrainsProvider extends EngineProvider {
    public static final String NAME = "shm-quiet-orders-get-drains";

    public QuietOrdersGetDrainsProvider() {
        super(NAME, Engine::new);
    }

    static final class Engine extends SlowPutEngine {
        private final int self = Integer.parseInt(System.getenv().getOrDefault("UNICOMM_RANK", "0"));

        Engine(Rma raw) {
            super(raw);
        }

        @Override
        public void quiet() {
            raw.quiet();
        } // the fault: the queue is ordered, not delivered

        @Override
        protected void completeForBarrier() {
            deliver(takeForQuiet());
        }

        @Override
        protected void completeBeforeReuse() {
            deliver(takeForQuiet());
        }

        @Override
        public void put(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
            if (pe == self) raw.put(dst, dstOffset, src, srcOffset, bytes, pe); // loopback shortcut
            else super.put(dst, dstOffset, src, srcOffset, bytes, pe);
        }

        @Override
        public void get(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
            deliver(takeForQuiet());
            raw.get(dst, dstOffset, src, srcOffset, bytes, pe);
        }

        @Override
        public void getNbi(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
            get(dst, dstOffset, src, srcOffset, bytes, pe);
        }
    }
}
