package dev.unicomm.api;

/**
 * An ordered queue of device work (a CUDA stream, an ACL stream). Operations issued
 * {@link Rma#on(Stream) on} a stream run in issue order relative to the stream's other work;
 * {@link #synchronize()} blocks until all of it is done. A stream made by
 * {@link DeviceRuntime#createStream()} is owned and destroyed by {@link #close()}; a wrapped
 * framework stream is never destroyed by unicomm.
 */
public interface Stream extends AutoCloseable {

    /** The native handle ({@code cudaStream_t}, {@code aclrtStream}); 0 is the default stream. */
    long handle();

    /** Blocks until all work issued on this stream so far has finished. */
    void synchronize();

    /** Whether the stream may still be used. */
    boolean isOpen();

    /** Destroys an owned stream (after synchronizing); forgets a wrapped one. */
    @Override
    void close();
}
