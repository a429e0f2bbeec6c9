package dev.unicomm.conformance.collectives;

import dev.unicomm.api.DType;
import dev.unicomm.api.ReduceOp;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.opentest4j.AssertionFailedError;

/**
 * The kit's plain-Java reference for collectives: test data, element-wise reductions in team-rank
 * order (BF16/FP16 widened to FP32 and rounded once, to nearest even), and the comparison rules.
 * Integer results and MIN/MAX must be exact. Floating SUM/PROD may differ from the rank-order
 * result by the rounding a different summation order causes: at most {@code n} FP32 roundings of
 * the magnitudes involved plus one rounding of the output type.
 */
public final class CollectiveReference {
    private CollectiveReference() {}

    /** Element types the reductions support. */
    public static final DType[] REDUCIBLE = {DType.INT32, DType.INT64, DType.FP32, DType.FP16, DType.BF16};

    /** {@code count} elements of test data for ({@code seed}, team rank {@code rank}): floats in [-4, 4), small integers. */
    public static byte[] data(DType dt, long seed, int rank, int count) {
        SplittableRandom rnd = new SplittableRandom(seed * 1_000_003L + rank * 7919L + dt.ordinal());
        ByteBuffer b = buffer(count * dt.byteSize());
        for (int i = 0; i < count; i++) {
            float f = (float) rnd.nextDouble(-4, 4);
            switch (dt) {
                case INT32 -> b.putInt(i * 4, rnd.nextInt(-100, 100));
                case INT64 -> b.putLong(i * 8, rnd.nextLong() >> 24);
                case FP32 -> b.putFloat(i * 4, f);
                case BF16 -> b.putShort(i * 2, toBf16(f));
                case FP16 -> b.putShort(i * 2, Float.floatToFloat16(f));
                default -> throw new IllegalArgumentException("no reduction test data for " + dt);
            }
        }
        return b.array();
    }

    /** Deterministic bytes for data-movement collectives. */
    public static byte[] bytes(long seed, int rank, int count) {
        byte[] out = new byte[count];
        SplittableRandom rnd = new SplittableRandom(seed * 31L + rank);
        for (int i = 0; i < count; i++) out[i] = (byte) rnd.nextInt();
        return out;
    }

    /** Element-wise reduction of {@code inputs[0] op inputs[1] op ...} (team-rank order). */
    public static byte[] reduce(DType dt, ReduceOp op, byte[][] inputs, int count) {
        ByteBuffer out = buffer(count * dt.byteSize());
        ByteBuffer[] in = new ByteBuffer[inputs.length];
        for (int k = 0; k < in.length; k++) in[k] = ByteBuffer.wrap(inputs[k]).order(ByteOrder.nativeOrder());
        for (int i = 0; i < count; i++) {
            if (dt == DType.INT32) {
                int acc = in[0].getInt(i * 4);
                for (int k = 1; k < in.length; k++) acc = (int) apply(op, acc, in[k].getInt(i * 4));
                out.putInt(i * 4, acc);
            } else if (dt == DType.INT64) {
                long acc = in[0].getLong(i * 8);
                for (int k = 1; k < in.length; k++) acc = apply(op, acc, in[k].getLong(i * 8));
                out.putLong(i * 8, acc);
            } else {
                float acc = load(dt, in[0], i);
                for (int k = 1; k < in.length; k++) {
                    float x = load(dt, in[k], i);
                    acc = switch (op) {
                        case SUM -> acc + x;
                        case PROD -> acc * x;
                        case MIN -> Math.min(acc, x);
                        case MAX -> Math.max(acc, x);
                    };
                }
                store(dt, out, i, acc);
            }
        }
        return out.array();
    }

    private static long apply(ReduceOp op, long a, long b) {
        return switch (op) {
            case SUM -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
        };
    }

    /**
     * Fails naming {@code what} and the first bad element unless {@code got} matches {@code want},
     * exactly or (floating SUM/PROD) within the tolerance the class comment states.
     */
    public static void check(DType dt, ReduceOp op, byte[][] inputs, byte[] want, byte[] got, int count, String what) {
        ByteBuffer w = ByteBuffer.wrap(want).order(ByteOrder.nativeOrder()),
                g = ByteBuffer.wrap(got).order(ByteOrder.nativeOrder());
        boolean exact = !dt.isFloating() || op == ReduceOp.MIN || op == ReduceOp.MAX;
        if (exact) {
            if (!java.util.Arrays.equals(want, got)) {
                int at = java.util.Arrays.mismatch(want, got) / dt.byteSize();
                throw new AssertionFailedError(what + ": element " + at + " of " + count + " is " + show(dt, g, at)
                        + ", expected " + show(dt, w, at));
            }
            return;
        }
        double outUlp =
                switch (dt) {
                    case BF16 -> 0x1p-8;
                    case FP16 -> 0x1p-10;
                    default -> 0x1p-23;
                };
        for (int i = 0; i < count; i++) {
            double a = load(dt, w, i), b = load(dt, g, i);
            if (Double.compare(a, b) == 0) continue;
            double magnitude = op == ReduceOp.PROD ? Math.abs(a) : 0;
            if (op == ReduceOp.SUM)
                for (byte[] x : inputs)
                    magnitude += Math.abs(load(dt, ByteBuffer.wrap(x).order(ByteOrder.nativeOrder()), i));
            double allowed = magnitude * (inputs.length * 0x1p-23 + outUlp) + 1e-30;
            if (!(Math.abs(a - b) <= allowed))
                throw new AssertionFailedError(what + ": element " + i + " of " + count + " is " + b + ", expected " + a
                        + " (allowed difference " + allowed + ")");
        }
    }

    private static String show(DType dt, ByteBuffer b, int i) {
        return switch (dt) {
            case INT32 -> Integer.toString(b.getInt(i * 4));
            case INT64 -> Long.toString(b.getLong(i * 8));
            default -> Float.toString(load(dt, b, i));
        };
    }

    static float load(DType dt, ByteBuffer b, int i) {
        return switch (dt) {
            case FP32 -> b.getFloat(i * 4);
            case BF16 -> Float.intBitsToFloat((b.getShort(i * 2) & 0xffff) << 16);
            case FP16 -> Float.float16ToFloat(b.getShort(i * 2));
            default -> throw new IllegalArgumentException(dt + " is not a float type");
        };
    }

    private static void store(DType dt, ByteBuffer b, int i, float v) {
        switch (dt) {
            case FP32 -> b.putFloat(i * 4, v);
            case BF16 -> b.putShort(i * 2, toBf16(v));
            default -> b.putShort(i * 2, Float.floatToFloat16(v));
        }
    }

    /** FP32 to BF16, round to nearest even (NaN stays NaN). */
    public static short toBf16(float f) {
        if (Float.isNaN(f)) return (short) 0x7fc0;
        int bits = Float.floatToRawIntBits(f);
        int upper = bits >>> 16, lower = bits & 0xffff;
        if (lower > 0x8000 || (lower == 0x8000 && (upper & 1) == 1)) upper++;
        return (short) upper;
    }

    private static ByteBuffer buffer(int bytes) {
        return ByteBuffer.allocate(bytes).order(ByteOrder.nativeOrder());
    }
}
