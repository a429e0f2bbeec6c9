package dev.unicomm.backend.ascend;

import dev.unicomm.api.Capability;
import dev.unicomm.backend.ascend.internal.AscendCommunicator;
import dev.unicomm.backend.ascend.internal.AscendSettings;
import dev.unicomm.backend.ascend.internal.AvailabilityProbe;
import dev.unicomm.spi.Availability;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.BackendPriority;
import dev.unicomm.spi.CommBackendProvider;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Function;

/**
 * The {@code ascend} backend: Huawei Ascend NPUs through Ascend SHMEM and the ACL runtime.
 *
 * <p>Capabilities: RMA (blocking, non-blocking, stream-ordered), 32-bit signals (see
 * the internal {@code AscendRma} for how the API's 64-bit signal words map onto them), teams, streams and
 * NPU device memory. Not declared: {@code ATOMICS} (Ascend SHMEM's host API has no remote atomics),
 * {@code DIRECT_PEER_ACCESS} (the default heap is NPU memory; with
 * {@code unicomm.ascend.heap.side=host} {@code peer()} works where {@code aclshmem_ptr} allows),
 * native collectives and MoE (the portable implementations serve them).
 *
 * <p>Natives load lazily: the constructor touches nothing, {@link #availability()} binds the
 * libraries named by the {@code unicomm.ascend.*} settings (keys and defaults: the internal
 * {@code AscendSettings}) and reports what is missing.
 */
public final class AscendBackendProvider implements CommBackendProvider {
    /** Priority: above the host backends, below nothing else on a machine that has NPUs. */
    public static final int PRIORITY = BackendPriority.DEVICE;

    private static final Set<Capability> CAPABILITIES = Set.copyOf(EnumSet.of(
            Capability.RMA,
            Capability.NONBLOCKING_RMA,
            Capability.SIGNALS,
            Capability.TEAMS,
            Capability.STREAMS,
            Capability.DEVICE_MEMORY_ASCEND,
            Capability.MULTI_PROCESS,
            Capability.MULTI_HOST));

    private final Function<String, String> settings;

    /** The provider {@link java.util.ServiceLoader} makes: settings from system properties and environment. */
    public AscendBackendProvider() {
        this(AscendSettings::systemSetting);
    }

    /** A provider reading its settings from {@code settings} instead (tests, embedding). */
    public AscendBackendProvider(Function<String, String> settings) {
        this.settings = settings;
    }

    @Override
    public String name() {
        return "ascend";
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    /**
     * The capabilities above; with {@code unicomm.ascend.heap.side=host} the heap is host memory, so
     * {@code DEVICE_MEMORY_ASCEND} is left out (the NPU is still driven through {@code device()}).
     */
    @Override
    public Set<Capability> capabilities() {
        try {
            if (AscendSettings.from(settings).hostHeap()) {
                EnumSet<Capability> host = EnumSet.copyOf(CAPABILITIES);
                host.remove(Capability.DEVICE_MEMORY_ASCEND);
                return Set.copyOf(host);
            }
        } catch (IllegalArgumentException e) {
            // a bad setting: availability() reports it; the declared set stays the default one
        }
        return CAPABILITIES;
    }

    @Override
    public Availability availability() {
        AscendSettings s;
        try {
            s = AscendSettings.from(settings);
        } catch (IllegalArgumentException e) {
            return Availability.no("bad Ascend backend setting: " + e.getMessage(), "fix the unicomm.ascend.* setting");
        }
        return AvailabilityProbe.probe(s);
    }

    @Override
    public BackendCommunicator open(BackendContext context) {
        // The job's configuration wins; what it lacks comes from this provider's own source.
        AscendSettings s = AscendSettings.from(k -> {
            String v = context.config().property(k, null);
            return v != null ? v : settings.apply(k);
        });
        AvailabilityProbe.probe(s).ensureAvailable(this);
        return AscendCommunicator.open(context, s);
    }
}
