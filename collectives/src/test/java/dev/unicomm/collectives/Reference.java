package dev.unicomm.collectives;

import dev.unicomm.api.DType;
import dev.unicomm.api.ReduceOp;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

/** Plain scalar reference of the reductions and test data (independent of the array kernels). */
final class Reference {
    private Reference() {}

    /** Reduces {@code inputs} (one per team rank, in order) element by element, FP32 accumulation for 16-bit floats. */
    static byte[] reduce(DType dt, ReduceOp op, byte[][] inputs, int count) {
        ByteBuffer out = ByteBuffer.allocate(count * dt.byteSize()).order(ByteOrder.nativeOrder());
        ByteBuffer[] in = new ByteBuffer[inputs.length];
        for (int k = 0; k < in.length; k++) in[k] = ByteBuffer.wrap(inputs[k]).order(ByteOrder.nativeOrder());
        for (int i = 0; i < count; i++) {
            switch (dt) {
                case INT32 -> {
                    int acc = in[0].getInt(i * 4);
                    for (int k = 1; k < in.length; k++) {
                        int x = in[k].getInt(i * 4);
                        acc = switch (op) {
                            case SUM -> acc + x;
                            case PROD -> acc * x;
                            case MIN -> Math.min(acc, x);
                            case MAX -> Math.max(acc, x);
                        };
                    }
                    out.putInt(i * 4, acc);
                }
                case INT64 -> {
                    long acc = in[0].getLong(i * 8);
                    for (int k = 1; k < in.length; k++) {
                        long x = in[k].getLong(i * 8);
                        acc = switch (op) {
                            case SUM -> acc + x;
                            case PROD -> acc * x;
                            case MIN -> Math.min(acc, x);
                            case MAX -> Math.max(acc, x);
                        };
                    }
                    out.putLong(i * 8, acc);
                }
                default -> {
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
                    switch (dt) {
                        case FP32 -> out.putFloat(i * 4, acc);
                        case BF16 -> out.putShort(i * 2, bf16(acc));
                        default -> out.putShort(i * 2, Float.floatToFloat16(acc));
                    }
                }
            }
        }
        return out.array();
    }

    private static float load(DType dt, ByteBuffer b, int i) {
        return switch (dt) {
            case FP32 -> b.getFloat(i * 4);
            case BF16 -> Float.intBitsToFloat((b.getShort(i * 2) & 0xffff) << 16);
            default -> Float.float16ToFloat(b.getShort(i * 2));
        };
    }

    /** BF16 rounding written the long way: pick the nearer neighbour, the even one on a tie. */
    static short bf16(float f) {
        if (Float.isNaN(f)) return (short) 0x7fc0;
        int bits = Float.floatToRawIntBits(f);
        int down = bits & 0xffff0000;
        int rest = bits & 0xffff;
        int kept = down >>> 16;
        if (rest > 0x8000 || (rest == 0x8000 && (kept & 1) == 1)) kept++;
        return (short) kept;
    }

    /** Deterministic test data: {@code count} elements of {@code dt} for ({@code seed}, {@code rank}). */
    static byte[] data(DType dt, long seed, int rank, int count) {
        SplittableRandom rnd = new SplittableRandom(seed * 1_000_003L + rank);
        ByteBuffer b = ByteBuffer.allocate(count * dt.byteSize()).order(ByteOrder.nativeOrder());
        for (int i = 0; i < count; i++) {
            switch (dt) {
                case INT32 -> b.putInt(i * 4, rnd.nextInt(-1000, 1000));
                case INT64 -> b.putLong(i * 8, rnd.nextLong() >> 20);
                case FP32 -> b.putFloat(i * 4, (float) rnd.nextDouble(-4, 4));
                case BF16 -> b.putShort(i * 2, bf16((float) rnd.nextDouble(-4, 4)));
                case FP16 -> b.putShort(i * 2, Float.floatToFloat16((float) rnd.nextDouble(-4, 4)));
                default -> b.put(i, (byte) rnd.nextInt());
            }
        }
        return b.array();
    }

    /** Raw bytes for data-movement collectives. */
    static byte[] bytes(long seed, int rank, int count) {
        byte[] b = new byte[count];
        new SplittableRandom(seed * 7_919L + rank).nextBytes(b);
        return b;
    }
}
