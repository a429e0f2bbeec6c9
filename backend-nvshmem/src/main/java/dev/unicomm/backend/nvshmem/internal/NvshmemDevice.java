package dev.unicomm.backend.nvshmem.internal;

import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.DeviceBuffer;
import dev.unicomm.api.DeviceRuntime;
import dev.unicomm.api.Memory;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.Stream;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The GPU this PE drives. Copies and fills run on the communicator's internal stream and wait for
 * it (bounded by the timeout). Host memory may be any segment: native segments are copied
 * directly, heap segments through the pinned bounce buffer.
 */
final class NvshmemDevice implements DeviceRuntime {
    private final NvshmemCommunicator c;

    NvshmemDevice(NvshmemCommunicator c) {
        this.c = c;
    }

    @Override
    public MemoryKind kind() {
        return c.kind;
    }

    @Override
    public DeviceBuffer allocate(long bytes) {
        c.ensureOpen();
        if (bytes < 0) throw new IllegalArgumentException("device allocation size must be >= 0, got " + bytes);
        // cudaMalloc(0) gives no address; one byte keeps every buffer addressable.
        var b = new NvshmemDeviceBuffer(c, NvOps.devAlloc(Math.max(bytes, 1)), bytes);
        synchronized (c.deviceBuffers) {
            c.deviceBuffers.add(b);
        }
        return b;
    }

    /** Checks {@code m} (null, kind, open, range) and returns its address at {@code offset}; 0 for heap host segments. */
    private long address(String what, Memory m, long offset, long bytes) {
        if (m == null) throw new IllegalArgumentException(what + " must not be null");
        MemoryKind k = m.kind();
        if (!k.isHost() && !k.equals(c.kind))
            throw new IllegalArgumentException(what + ": memory on " + k + " but this PE drives " + c.kind);
        long cap = m.byteSize();
        if (offset < 0 || bytes < 0 || offset > cap || bytes > cap - offset)
            throw new IndexOutOfBoundsException(what + ": range [" + offset + ", " + offset + "+" + bytes
                    + ") is outside the " + cap + "-byte memory");
        if (k.isHost()) {
            MemorySegment s = m.segment();
            return s.isNative() ? s.address() + offset : 0;
        }
        return m.address() + offset; // throws IllegalStateException for a freed buffer
    }

    @Override
    public void copy(Memory dst, long dstOffset, Memory src, long srcOffset, long bytes) {
        c.ensureOpen();
        long d = address("copy dst", dst, dstOffset, bytes);
        long s = address("copy src", src, srcOffset, bytes);
        if (bytes == 0) return;
        boolean dh = dst.kind().isHost(), sh = src.kind().isHost();
        if (dh && sh) {
            MemorySegment.copy(src.segment(), srcOffset, dst.segment(), dstOffset, bytes);
            return;
        }
        c.lock.lock();
        try {
            if ((sh && s == 0) || (dh && d == 0)) {
                staged(dst, dstOffset, d, src, srcOffset, s, bytes);
            } else {
                NvOps.copyAsync(d, s, bytes, c.io.ctrl);
                c.await(c.io.ctrl, "DeviceRuntime.copy");
            }
        } finally {
            c.lock.unlock();
        }
    }

    /** A Java-heap segment on one side: through the pinned bounce buffer. */
    private void staged(Memory dst, long dstOffset, long d, Memory src, long srcOffset, long s, long bytes) {
        MemorySegment bounce = c.io.bounceSegment();
        boolean toDevice = !dst.kind().isHost();
        for (long done = 0; done < bytes; ) {
            long n = Math.min(c.io.bounceBytes, bytes - done);
            if (toDevice) {
                MemorySegment.copy(src.segment(), srcOffset + done, bounce, 0, n);
                NvOps.copyAsync(d + done, c.io.bounce, n, c.io.ctrl);
                c.await(c.io.ctrl, "DeviceRuntime.copy");
            } else {
                NvOps.copyAsync(c.io.bounce, s + done, n, c.io.ctrl);
                c.await(c.io.ctrl, "DeviceRuntime.copy");
                MemorySegment.copy(bounce, 0, dst.segment(), dstOffset + done, n);
            }
            done += n;
        }
    }

    @Override
    public void fill(Memory dst, long offset, long bytes, byte value) {
        c.ensureOpen();
        long d = address("fill dst", dst, offset, bytes);
        if (bytes == 0) return;
        if (dst.kind().isHost()) {
            dst.segment().asSlice(offset, bytes).fill(value);
            return;
        }
        c.lock.lock();
        try {
            NvOps.fillAsync(d, value & 0xff, bytes, c.io.ctrl);
            c.await(c.io.ctrl, "DeviceRuntime.fill");
        } finally {
            c.lock.unlock();
        }
    }

    @Override
    public Stream createStream() {
        c.ensureOpen();
        return remember(new NvshmemStream(c, NvOps.streamCreate(), true));
    }

    @Override
    public Stream wrapStream(long handle) {
        c.ensureOpen();
        return remember(new NvshmemStream(c, handle, false));
    }

    private Stream remember(NvshmemStream s) {
        synchronized (c.streams) {
            c.streams.add(s);
        }
        return s;
    }

    /** Our open stream behind {@code s}; anything else is refused with a reason. */
    NvshmemStream own(String what, Stream s) {
        if (s == null) throw new IllegalArgumentException(what + ": stream must not be null");
        if (!(s instanceof NvshmemStream ns) || ns.owner() != c)
            throw new IllegalArgumentException(what + ": " + s + " was not made by this communicator's DeviceRuntime "
                    + "(createStream, or wrapStream for a framework's cudaStream_t)");
        ns.liveHandle();
        return ns;
    }

    /** cudaDeviceSynchronize cannot be bounded, so it runs on a helper thread that we stop waiting for. */
    @Override
    public void synchronize() {
        c.ensureOpen();
        FutureTask<Void> task = new FutureTask<>(NvOps::deviceSync, null);
        Thread t =
                Thread.ofPlatform().daemon().name("unicomm-nvshmem-device-sync").start(task);
        try {
            task.get(c.timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new CommTimeoutException(
                    "DeviceRuntime.synchronize (cudaDeviceSynchronize on " + c.kind + ", thread " + t.getName()
                            + " left waiting)",
                    c.timeout);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) throw re;
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommTimeoutException("DeviceRuntime.synchronize (interrupted)", c.timeout);
        }
    }
}
