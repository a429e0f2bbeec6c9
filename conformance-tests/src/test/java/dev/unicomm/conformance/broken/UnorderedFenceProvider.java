package dev.unicomm.conformance.broken;

import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.SymmetricBuffer;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Broken on purpose: puts are deferred (legal: quiet and barriers deliver them), but delivered in
 * reverse order with pauses in between, and fence does nothing, so it does not order anything.
 */
public final class UnorderedFenceProvider extends DecoratedProvider {
    public static final String NAME = "shm-unordered-fence";

    public UnorderedFenceProvider() {
        super(NAME, Deferring::new);
    }

    private record Pending(SymmetricBuffer dst, long dstOffset, MemorySegment data, int pe) {}

    static final class Deferring extends ForwardingRma {
        private final List<Pending> queue = new ArrayList<>();

        Deferring(Rma raw) {
            super(raw);
        }

        private synchronized void defer(
                SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
            // copy now: the source is reusable when put returns
            MemorySegment copy = MemorySegment.ofArray(new byte[Math.toIntExact(bytes)]);
            MemorySegment.copy(src.segment(), srcOffset, copy, 0, bytes);
            queue.add(new Pending(dst, dstOffset, copy, pe));
        }

        @Override
        public void put(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
            defer(dst, dstOffset, src, srcOffset, bytes, pe);
        }

        @Override
        public void putNbi(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
            defer(dst, dstOffset, src, srcOffset, bytes, pe);
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
            quiet();
            raw.putSignal(dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, value, op, pe);
        }

        @Override
        public void putSignalNbi(
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
            quiet();
            raw.putSignalNbi(dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, value, op, pe);
        }

        @Override
        public void fence() {
            // the bug: nothing
        }

        @Override
        public void quiet() {
            List<Pending> todo;
            synchronized (this) {
                todo = new ArrayList<>(queue);
                queue.clear();
            }
            for (int i = todo.size() - 1; i >= 0; i--) {
                Pending p = todo.get(i);
                raw.put(p.dst(), p.dstOffset(), Memory.of(p.data()), 0, p.data().byteSize(), p.pe());
                raw.quiet();
                if (i > 0) pause();
            }
            raw.quiet();
        }

        /**
         * Ranks pause for different times (100 ms on rank 0, 300 ms on rank 1, ...): with equal pauses two
         * ranks in lock-step could both finish their own quiet after the peer's late data had landed,
         * and the missing order would go unseen on a quiet machine.
         */
        private static final long PAUSE_MS =
                100 * (1 + 2L * Integer.parseInt(System.getenv().getOrDefault("UNICOMM_RANK", "0")));

        private static void pause() {
            try {
                Thread.sleep(PAUSE_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
