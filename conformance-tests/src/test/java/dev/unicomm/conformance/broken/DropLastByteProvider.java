package dev.unicomm.conformance.broken;

import dev.unicomm.api.Memory;
import dev.unicomm.api.SymmetricBuffer;

/** Broken on purpose: every blocking and non-blocking put leaves out its last byte. */
public final class DropLastByteProvider extends DecoratedProvider {
    public static final String NAME = "shm-drop-last-byte";

    public DropLastByteProvider() {
        super(NAME, raw -> new ForwardingRma(raw) {
            @Override
            public void put(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
                raw.put(dst, dstOffset, src, srcOffset, Math.max(0, bytes - 1), pe);
            }

            @Override
            public void putNbi(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
                raw.putNbi(dst, dstOffset, src, srcOffset, Math.max(0, bytes - 1), pe);
            }
        });
    }
}
