package dev.unicomm.collectives;

import dev.unicomm.api.Collectives;
import dev.unicomm.api.CommConfig;
import dev.unicomm.api.Communicator;
import dev.unicomm.spi.CollectivesProvider;

/**
 * Registers the portable collectives ({@link java.util.ServiceLoader}). {@link #create} allocates
 * symmetric scratch memory on every PE: 8 bytes of counters per PE, two slots per PE and one
 * staging slot of 64 + {@code unicomm.collectives.slot.bytes} bytes each ({@code 8W + (2W + 1)(64 + S)}; about 0.6 MiB for 4 PEs with the
 * 64 KiB default), so it is collective: the first {@link Communicator#collectives()} call must be
 * made by every PE at the same point of the symmetric heap's allocation order. The memory is
 * freed when the communicator closes.
 */
public final class PortableCollectivesProvider implements CollectivesProvider {
    @Override
    public Collectives create(Communicator comm, CommConfig config) {
        return new PortableCollectives(comm, CollectivesSettings.of(config), CollectivesSettings.twoLevel(config));
    }
}
