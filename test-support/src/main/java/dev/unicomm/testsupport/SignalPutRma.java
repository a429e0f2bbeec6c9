package dev.unicomm.testsupport;

import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.spi.ForwardingRma;
import java.lang.foreign.MemorySegment;

/**
 * A forwarding RMA whose two put-with-signal calls (blocking and non-blocking) arrive at one method, their ten
 * arguments as one {@link SignalPut}: for test doubles that change what a put-with-signal does, so that none writes
 * the two ten-parameter signatures again. Every other call goes to the delegate.
 */
public abstract class SignalPutRma extends ForwardingRma {
    /** @param delegate the RMA every call goes to unless overridden */
    protected SignalPutRma(Rma delegate) {
        super(delegate);
    }

    /**
     * One put-with-signal: {@code bytes} from {@code src} to {@code dst} on {@code pe}, then {@code op} of {@code value}
     * on the signal word; a plain put where {@code signal} is null.
     */
    public record SignalPut(
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
        /** A plain put, as a value that queues beside put-with-signals. */
        public static SignalPut put(
                SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
            return new SignalPut(dst, dstOffset, src, srcOffset, bytes, null, 0, 0, null, pe);
        }

        /** The same call with its data copied now (the caller may reuse its source once put returns). */
        public SignalPut withSourceCopied() {
            MemorySegment copy = MemorySegment.ofArray(new byte[Math.toIntExact(bytes)]);
            MemorySegment.copy(src.segment(), srcOffset, copy, 0, bytes);
            return new SignalPut(dst, dstOffset, Memory.of(copy), 0, bytes, signal, signalOffset, value, op, pe);
        }

        /** The same call with another signal update. */
        public SignalPut withSignal(long newValue, SignalOp newOp) {
            return new SignalPut(dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, newValue, newOp, pe);
        }

        /** Issues this call on {@code rma}: a put where there is no signal, else putSignalNbi when {@code nbi}, else putSignal. */
        public void issueOn(Rma rma, boolean nbi) {
            if (signal == null) rma.put(dst, dstOffset, src, srcOffset, bytes, pe);
            else if (nbi) rma.putSignalNbi(dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, value, op, pe);
            else rma.putSignal(dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, value, op, pe);
        }
    }

    /** Both put-with-signal calls ({@code nbi} for putSignalNbi); forwards to the delegate unless overridden. */
    protected void putSignal(SignalPut call, boolean nbi) {
        call.issueOn(delegate(), nbi);
    }

    @Override
    public final void putSignal(
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
        putSignal(new SignalPut(dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, value, op, pe), false);
    }

    @Override
    public final void putSignalNbi(
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
        putSignal(new SignalPut(dst, dstOffset, src, srcOffset, bytes, signal, signalOffset, value, op, pe), true);
    }
}
