package dev.unicomm.backend.ascend.internal;

import dev.unicomm.api.DeviceBuffer;
import dev.unicomm.api.DeviceRuntime;
import dev.unicomm.api.Memory;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.Stream;
import dev.unicomm.backend.ascend.internal.AscendNatives.CopyKind;
import java.lang.foreign.MemorySegment;

/**
 * The ACL runtime of this PE's NPU: {@code aclrtMalloc}/{@code aclrtFree}, {@code aclrtMemcpy},
 * {@code aclrtMemset}, streams. The API does not validate device-runtime arguments, so this class
 * does, before any native call.
 */
final class AscendDevice implements DeviceRuntime {
    private final AscendCommunicator comm;
    private final MemoryKind kind;

    AscendDevice(AscendCommunicator comm, MemoryKind kind) {
        this.comm = comm;
        this.kind = kind;
    }

    @Override
    public MemoryKind kind() {
        return kind;
    }

    @Override
    public DeviceBuffer allocate(long bytes) {
        comm.ensureOpen();
        if (bytes < 0) throw new IllegalArgumentException("device allocation size must be >= 0, got " + bytes);
        long ptr = AscendNatives.malloc(Math.max(bytes, 1)); // aclrtMalloc rejects 0 bytes
        return comm.remember(new AclDeviceBuffer(comm, ptr, bytes, kind));
    }

    @Override
    public void copy(Memory dst, long dstOffset, Memory src, long srcOffset, long bytes) {
        comm.ensureOpen();
        check("copy destination", dst, dstOffset, bytes);
        check("copy source", src, srcOffset, bytes);
        if (bytes == 0) return;
        Operand d = Operand.of(dst, dstOffset, bytes, kind);
        Operand s = Operand.of(src, srcOffset, bytes, kind);
        if (d.engine() && s.engine()) {
            AscendNatives.memcpy(d.address(), s.address(), bytes, CopyKind.DEVICE_TO_DEVICE);
        } else if (!d.engine() && !s.engine()) {
            MemorySegment.copy(s.host(), 0, d.host(), 0, bytes);
        } else if (d.engine()) {
            if (s.host().isNative()) AscendNatives.memcpy(d.address(), s.address(), bytes, CopyKind.HOST_TO_DEVICE);
            else viaScratch(d.address(), s.host(), bytes, true);
        } else {
            if (d.host().isNative()) AscendNatives.memcpy(d.address(), s.address(), bytes, CopyKind.DEVICE_TO_HOST);
            else viaScratch(s.address(), d.host(), bytes, false);
        }
    }

    /** Heap segments have no address: copy through the native scratch buffer in chunks. */
    private void viaScratch(long device, MemorySegment host, long bytes, boolean toDevice) {
        Staging st = comm.staging();
        st.lock.lock();
        try {
            long chunk = st.bytes;
            for (long done = 0; done < bytes; done += chunk) {
                long n = Math.min(chunk, bytes - done);
                MemorySegment scratch = st.scratch(n);
                if (toDevice) {
                    MemorySegment.copy(host, done, scratch, 0, n);
                    AscendNatives.memcpy(device + done, scratch.address(), n, CopyKind.HOST_TO_DEVICE);
                } else {
                    AscendNatives.memcpy(scratch.address(), device + done, n, CopyKind.DEVICE_TO_HOST);
                    MemorySegment.copy(scratch, 0, host, done, n);
                }
            }
        } finally {
            st.lock.unlock();
        }
    }

    @Override
    public void fill(Memory dst, long offset, long bytes, byte value) {
        comm.ensureOpen();
        check("fill destination", dst, offset, bytes);
        if (bytes == 0) return;
        Operand d = Operand.of(dst, offset, bytes, kind);
        if (d.engine()) AscendNatives.memset(d.address(), value & 0xff, bytes);
        else d.host().fill(value);
    }

    @Override
    public Stream createStream() {
        comm.ensureOpen();
        return comm.remember(new AclStream(comm, AscendNatives.createStream(), true));
    }

    /** Wraps a framework's aclrtStream; ACL must know it ({@code aclrtStreamQuery}), 0 is the default stream. */
    @Override
    public Stream wrapStream(long handle) {
        comm.ensureOpen();
        AscendCommunicator.checkHandle(handle);
        return new AclStream(comm, handle, false);
    }

    /** aclrtSynchronizeDeviceWithTimeout with the communicator's timeout. */
    @Override
    public void synchronize() {
        comm.ensureOpen();
        AscendNatives.syncDevice(comm.timeout(), "device synchronize");
    }

    private void check(String what, Memory m, long offset, long bytes) {
        if (m == null) throw new IllegalArgumentException(what + " must not be null");
        if (m instanceof DeviceBuffer b && !b.isOpen())
            throw new IllegalStateException(what + ": " + b + " was already freed");
        if (m instanceof dev.unicomm.api.SymmetricBuffer b && !b.isOpen())
            throw new IllegalStateException(
                    what + ": symmetric buffer at heap offset " + b.offset() + " was already freed");
        MemoryKind k = m.kind();
        if (!k.isHost() && !k.equals(kind))
            throw new IllegalArgumentException(
                    what + ": " + k + " memory is not usable here; this PE drives " + kind + " (and host memory)");
        if (offset < 0 || bytes < 0 || offset > m.byteSize() || bytes > m.byteSize() - offset)
            throw new IndexOutOfBoundsException(what + ": range [" + offset + ", " + offset + "+" + bytes
                    + ") is outside the " + m.byteSize() + "-byte memory");
    }
}
