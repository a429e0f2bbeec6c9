package dev.unicomm.conformance.planted;

import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SymmetricBuffer;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;

/**
 * Planted fault (§2.5, §5.3): gets and atomic fetches are served from a read cache keyed by target PE and
 * heap address, dropped only when this PE itself writes to that PE; another PE's writes are never seen again.
 */
public final class CachedReadsProvider extends EngineProvider {
    public static final String NAME = "shm-cached-reads";

    public CachedReadsProvider() {
        super(NAME, Engine::new);
    }

    static final class Engine extends SlowPutEngine {
        private final Map<String, byte[]> cache = new HashMap<>();

        Engine(Rma raw) {
            super(raw);
        }

        private static String key(int pe, SymmetricBuffer b, long offset, long bytes) {
            return pe + "@" + (b.offset() + offset) + "+" + bytes;
        }

        private synchronized void forget(int pe) {
            cache.keySet().removeIf(k -> k.startsWith(pe + "@"));
        }

        @Override
        public void get(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
            byte[] hit;
            synchronized (this) {
                hit = cache.get(key(pe, src, srcOffset, bytes));
            }
            if (hit == null) {
                MemorySegment fresh = MemorySegment.ofArray(new byte[Math.toIntExact(bytes)]);
                raw.get(Memory.of(fresh), 0, src, srcOffset, bytes, pe);
                hit = fresh.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
                synchronized (this) {
                    cache.put(key(pe, src, srcOffset, bytes), hit);
                }
            }
            MemorySegment.copy(MemorySegment.ofArray(hit), 0, dst.segment(), dstOffset, bytes);
        }

        @Override
        public long atomicFetch(SymmetricBuffer buf, long offset, int pe) {
            MemorySegment word = MemorySegment.ofArray(new byte[8]);
            get(Memory.of(word), 0, buf, offset, 8, pe);
            return word.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0);
        }

        @Override
        protected void enqueue(Op op) {
            forget(op.pe());
            super.enqueue(op);
        }

        @Override
        public void atomicSet(SymmetricBuffer buf, long offset, long value, int pe) {
            forget(pe);
            raw.atomicSet(buf, offset, value, pe);
        }

        @Override
        public long atomicFetchAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
            forget(pe);
            return raw.atomicFetchAdd(buf, offset, delta, pe);
        }

        @Override
        public void atomicAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
            forget(pe);
            raw.atomicAdd(buf, offset, delta, pe);
        }
    }
}
