package dev.unicomm.api;

/** Element types of tensors and reductions. */
public enum DType {
    BF16(2),
    FP16(2),
    FP32(4),
    FP8_E4M3(1),
    INT32(4),
    INT64(8),
    BOOL(1),
    UINT8(1);

    private final int byteSize;

    DType(int byteSize) {
        this.byteSize = byteSize;
    }

    /** Size of one element in bytes. */
    public int byteSize() {
        return byteSize;
    }

    /** Whether the type is a floating-point type. */
    public boolean isFloating() {
        return this == BF16 || this == FP16 || this == FP32 || this == FP8_E4M3;
    }
}
