package dev.unicomm.api;

/**
 * The accelerator that a device backend (NVSHMEM, Ascend SHMEM) drives for this PE: plain device
 * allocations, copies between host and device memory, fills, and streams.
 */
public interface DeviceRuntime {

    /** The device this PE uses. */
    MemoryKind kind();

    /** Allocates {@code bytes} of (non-symmetric) device memory. */
    DeviceBuffer allocate(long bytes);

    /**
     * Copies {@code bytes} from {@code src[srcOffset..]} to {@code dst[dstOffset..]}; either side may be
     * host or this device's memory. Blocks until the copy is done.
     */
    void copy(Memory dst, long dstOffset, Memory src, long srcOffset, long bytes);

    /** Sets {@code bytes} bytes of {@code dst} from {@code offset} to {@code value}. Blocks. */
    void fill(Memory dst, long offset, long bytes, byte value);

    /** Creates a new owned stream on this device. */
    Stream createStream();

    /** Wraps a framework's stream handle; unicomm never destroys it. */
    Stream wrapStream(long handle);

    /** Blocks until all work on the device is done. */
    void synchronize();
}
