package dev.unicomm.spi;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;

/** Portable MoE dispatch/combine over the API's RMA and signals. Found with {@link java.util.ServiceLoader}. */
public interface MoeProvider {
    /** Opens a buffer for {@code config} on {@code comm} (collective). */
    MoeBuffer open(Communicator comm, MoeConfig config);
}
