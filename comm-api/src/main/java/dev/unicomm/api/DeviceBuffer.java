package dev.unicomm.api;

/** Device memory owned by unicomm (from {@link DeviceRuntime#allocate}); freed by {@link #close()}. */
public interface DeviceBuffer extends Memory, AutoCloseable {
    /** Whether the memory is still allocated. */
    boolean isOpen();

    @Override
    void close();
}
