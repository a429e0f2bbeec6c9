package dev.unicomm.api;

/**
 * Where memory lives: host memory, or the memory of one accelerator device.
 *
 * @param type   host, CUDA or Ascend
 * @param device device ordinal for device memory; {@code -1} for host memory
 */
public record MemoryKind(Type type, int device) {

    /** Host (CPU) memory. */
    public static final MemoryKind HOST = new MemoryKind(Type.HOST, -1);

    /** The kinds of memory unicomm knows. */
    public enum Type {
        HOST,
        CUDA,
        ASCEND
    }

    public MemoryKind {
        if (type == null) throw new IllegalArgumentException("memory type must not be null");
        if (type == Type.HOST && device != -1)
            throw new IllegalArgumentException("host memory has no device ordinal, got " + device);
        if (type != Type.HOST && device < 0)
            throw new IllegalArgumentException(type + " memory needs a device ordinal >= 0, got " + device);
    }

    /** CUDA device memory on device {@code ordinal}. */
    public static MemoryKind cuda(int ordinal) {
        return new MemoryKind(Type.CUDA, ordinal);
    }

    /** Ascend NPU device memory on device {@code ordinal}. */
    public static MemoryKind ascend(int ordinal) {
        return new MemoryKind(Type.ASCEND, ordinal);
    }

    /** Whether this is host memory. */
    public boolean isHost() {
        return type == Type.HOST;
    }

    @Override
    public String toString() {
        return isHost() ? "HOST" : type + ":" + device;
    }
}
