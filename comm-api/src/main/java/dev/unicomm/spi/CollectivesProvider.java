package dev.unicomm.spi;

import dev.unicomm.api.Collectives;
import dev.unicomm.api.CommConfig;
import dev.unicomm.api.Communicator;

/**
 * Portable collectives, written over the API's RMA and signals (module {@code collectives});
 * used for backends without native ones. Found with {@link java.util.ServiceLoader}.
 */
public interface CollectivesProvider {
    /**
     * Collectives for {@code comm}; called once per communicator. {@code config} is the job's
     * configuration, for the provider's own settings (so it never needs the validating layer's type).
     */
    Collectives create(Communicator comm, CommConfig config);
}
