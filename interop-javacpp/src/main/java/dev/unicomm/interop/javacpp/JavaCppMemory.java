package dev.unicomm.interop.javacpp;

import dev.unicomm.api.DeviceRuntime;
import dev.unicomm.api.Memory;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.Stream;
import java.lang.foreign.MemorySegment;
import org.bytedeco.javacpp.Pointer;

/**
 * Zero-copy views of JavaCPP memory as unicomm {@link Memory}.
 *
 * <p>A pointer's elements from {@code position()} to {@code limit()} (times {@code sizeof()}) are the
 * bytes; pass an explicit length where the pointer does not know its limit. The returned memory holds
 * the pointer, so JavaCPP does not free it while unicomm can still reach it; freeing it explicitly
 * ({@code Pointer.close()/deallocate()}) while in use is the caller's error, as with any native memory.
 *
 * <p>Host views use {@link MemorySegment#reinterpret(long)}, a restricted method: run with
 * {@code --enable-native-access=dev.unicomm.interop.javacpp} (module path) or {@code ALL-UNNAMED}.
 */
public final class JavaCppMemory {
    private JavaCppMemory() {}

    /** Host memory: the pointer's elements from position to limit. */
    public static Memory of(Pointer pointer) {
        Pointer p = notNull(pointer);
        long elements = p.limit() - p.position();
        if (p.limit() <= 0 || elements < 0)
            throw new IllegalArgumentException("the pointer does not know its extent (position " + p.position()
                    + ", limit " + p.limit() + "): use JavaCppMemory.of(pointer, bytes)");
        return of(p, Math.multiplyExact(elements, (long) p.sizeof()));
    }

    /** Host memory: {@code bytes} bytes from the pointer's position. */
    public static Memory of(Pointer pointer, long bytes) {
        Pointer p = notNull(pointer);
        long address = start(p, bytes);
        return new PointerMemory(p, MemorySegment.ofAddress(address).reinterpret(bytes));
    }

    /** Device memory (e.g. from {@code cudaMalloc}): {@code bytes} bytes from the pointer's position on {@code kind}. */
    public static Memory device(Pointer pointer, long bytes, MemoryKind kind) {
        Pointer p = notNull(pointer);
        return new PointerDeviceMemory(p, Memory.device(start(p, bytes), bytes, kind));
    }

    /** A framework's stream (e.g. a {@code CUstream_st} pointer) wrapped by the device backend; unicomm never destroys it. */
    public static Stream stream(DeviceRuntime device, Pointer stream) {
        if (device == null) throw new IllegalArgumentException("device runtime must not be null");
        if (stream == null)
            throw new IllegalArgumentException(
                    "stream pointer must not be null (use address 0 for the default stream via DeviceRuntime.wrapStream(0))");
        return device.wrapStream(stream.address());
    }

    private static Pointer notNull(Pointer p) {
        if (p == null) throw new IllegalArgumentException("pointer must not be null");
        if (p.isNull()) throw new IllegalArgumentException("pointer is NULL (address 0): nothing to wrap");
        return p;
    }

    /** The first byte's address, after checking the length. */
    private static long start(Pointer p, long bytes) {
        if (bytes < 0) throw new IllegalArgumentException("bytes must be >= 0, got " + bytes);
        if (p.capacity() > 0) {
            long available = Math.multiplyExact(p.capacity() - p.position(), (long) p.sizeof());
            if (bytes > available)
                throw new IllegalArgumentException(bytes + " bytes from position " + p.position()
                        + " exceed the pointer's capacity (" + p.capacity() + " elements of " + p.sizeof() + " bytes: "
                        + available + " bytes available)");
        }
        return p.address() + Math.multiplyExact(p.position(), (long) p.sizeof());
    }
}
