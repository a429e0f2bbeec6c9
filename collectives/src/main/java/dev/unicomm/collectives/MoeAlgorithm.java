package dev.unicomm.collectives;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.HostTopology;
import dev.unicomm.spi.BackendSettings;
import java.util.Locale;

/**
 * Which normal-mode MoE algorithm the portable MoE runs: {@link #FLAT} (every rank writes each token
 * straight to every rank that hosts one of its experts) or {@link #HIERARCHICAL} (DeepEP internode's
 * two levels: each token crosses to each destination host once, then is forwarded inside the host).
 * Setting {@code unicomm.moe.algorithm} ({@code UNICOMM_MOE_ALGORITHM}) {@code =flat|hierarchical|auto}
 * (default auto), the same on every rank; read when a normal MoE buffer is opened. Low-latency mode is
 * always direct.
 */
public enum MoeAlgorithm {
    /** One hop: source rank to destination rank. */
    FLAT,
    /** Two hops: across hosts once per destination host, then inside the host. */
    HIERARCHICAL;

    /** The setting's key. */
    public static final String PROPERTY = "unicomm.moe.algorithm";
    /** {@link #PROPERTY} without the prefix, as the settings lookup takes it. */
    static final String KEY = "moe.algorithm";

    /**
     * What a normal MoE buffer opened now on {@code comm} runs: the setting, or with {@code auto} the
     * topology's choice ({@link #forTopology}). {@code hierarchical} on one host runs flat: no byte
     * crosses a host, so both are the same algorithm.
     *
     * @throws IllegalArgumentException for a value other than flat, hierarchical or auto
     */
    public static MoeAlgorithm chosen(Communicator comm) {
        HostTopology topo = comm.topology();
        String v = setting();
        return switch (v) {
            case "flat" -> FLAT;
            case "hierarchical" -> topo.singleHost() ? FLAT : HIERARCHICAL;
            case "auto" -> forTopology(topo);
            default ->
                throw new IllegalArgumentException(
                        PROPERTY + " (UNICOMM_MOE_ALGORITHM) must be flat, hierarchical or auto, got '" + v + "'");
        };
    }

    /** Automatic choice: two levels where some host has several ranks and there are several hosts; else flat (it cannot send fewer bytes across hosts). */
    public static MoeAlgorithm forTopology(HostTopology topo) {
        return topo.hostCount() > 1 && topo.hostCount() < topo.size() ? HIERARCHICAL : FLAT;
    }

    private static String setting() {
        String v = BackendSettings.fromEnvironment().get(KEY, "auto");
        return v.trim().toLowerCase(Locale.ROOT);
    }

    /** {@code flat} or {@code hierarchical}, as the setting spells it. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
