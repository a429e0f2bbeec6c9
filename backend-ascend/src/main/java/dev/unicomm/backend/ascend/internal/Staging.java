package dev.unicomm.backend.ascend.internal;

import dev.unicomm.backend.ascend.internal.AscendNatives.CopyKind;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Bounce buffers between host memory and Ascend engines, which only address NPU memory: a device
 * buffer taken from the symmetric heap at open (so RDMA paths may use it too) and a native host
 * buffer for Java heap segments, which have no stable address. One operation at a time uses them
 * ({@link #lock}).
 */
final class Staging implements AutoCloseable {
    final long device;
    final long bytes;
    final ReentrantLock lock = new ReentrantLock();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment bounce;

    Staging(long device, long bytes) {
        this.device = device;
        this.bytes = bytes;
        this.bounce = arena.allocate(bytes, 4096);
    }

    /** Copies {@code len} bytes of {@code src} from {@code at} into the device buffer. */
    void toDevice(MemorySegment src, long at, long len) {
        MemorySegment part = src.asSlice(at, len);
        if (part.isNative()) {
            AscendNatives.memcpy(device, part.address(), len, CopyKind.HOST_TO_DEVICE);
        } else {
            MemorySegment.copy(part, 0, bounce, 0, len);
            AscendNatives.memcpy(device, bounce.address(), len, CopyKind.HOST_TO_DEVICE);
        }
    }

    /** Copies {@code len} bytes of the device buffer into {@code dst} at {@code at}. */
    void toHost(MemorySegment dst, long at, long len) {
        MemorySegment part = dst.asSlice(at, len);
        if (part.isNative()) {
            AscendNatives.memcpy(part.address(), device, len, CopyKind.DEVICE_TO_HOST);
        } else {
            AscendNatives.memcpy(bounce.address(), device, len, CopyKind.DEVICE_TO_HOST);
            MemorySegment.copy(bounce, 0, part, 0, len);
        }
    }

    /** A native host scratch area of at least {@code len} bytes (heap segments' stand-in). */
    MemorySegment scratch(long len) {
        return bounce.asSlice(0, len);
    }

    @Override
    public void close() {
        arena.close();
    }
}
