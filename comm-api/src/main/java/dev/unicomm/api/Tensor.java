package dev.unicomm.api;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * A dense, row-major tensor: memory, element type and shape. Owns nothing; whoever made the
 * memory frees it.
 */
public final class Tensor {
    private final Memory memory;
    private final DType dtype;
    private final long[] shape;

    private Tensor(Memory memory, DType dtype, long[] shape) {
        this.memory = Objects.requireNonNull(memory, "memory");
        this.dtype = Objects.requireNonNull(dtype, "dtype");
        this.shape = shape.clone();
        long n = 1;
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] < 0) throw new IllegalArgumentException("shape[" + i + "] must be >= 0, got " + shape[i]);
            n = Math.multiplyExact(n, shape[i]);
        }
        long bytes = Math.multiplyExact(n, dtype.byteSize());
        if (bytes > memory.byteSize())
            throw new IllegalArgumentException("tensor " + dtype + Arrays.toString(shape) + " needs " + bytes
                    + " bytes but its memory has " + memory.byteSize());
    }

    /** A tensor view of {@code memory} (which must hold at least the tensor's bytes). */
    public static Tensor of(Memory memory, DType dtype, long... shape) {
        return new Tensor(memory, dtype, shape);
    }

    /** A tensor view of a host segment. */
    public static Tensor of(MemorySegment segment, DType dtype, long... shape) {
        return new Tensor(Memory.of(segment), dtype, shape);
    }

    /** Allocates a zeroed host tensor in {@code arena} (64-byte aligned). */
    public static Tensor allocate(Arena arena, DType dtype, long... shape) {
        long n = 1;
        for (long s : shape) n = Math.multiplyExact(n, Math.max(s, 0));
        MemorySegment seg =
                arena.allocate(Math.max(1, n * dtype.byteSize()), 64).fill((byte) 0);
        return new Tensor(Memory.of(seg.asSlice(0, n * dtype.byteSize())), dtype, shape);
    }

    public Memory memory() {
        return memory;
    }

    public DType dtype() {
        return dtype;
    }

    /** A copy of the shape. */
    public long[] shape() {
        return shape.clone();
    }

    /** Number of dimensions. */
    public int rank() {
        return shape.length;
    }

    /** Size of dimension {@code i}. */
    public long dim(int i) {
        return shape[i];
    }

    /** Number of elements. */
    public long numel() {
        long n = 1;
        for (long s : shape) n *= s;
        return n;
    }

    /** Size in bytes of the elements. */
    public long byteSize() {
        return numel() * dtype.byteSize();
    }

    /** The host segment (exactly the tensor's bytes). */
    public MemorySegment segment() {
        return memory.segment().asSlice(0, byteSize());
    }

    @Override
    public String toString() {
        return "Tensor[" + dtype + Arrays.toString(shape) + " @" + memory.kind() + "]";
    }
}
