package dev.unicomm.backend.nvshmem.internal;

import dev.unicomm.api.CommConfig;
import java.time.Duration;
import java.util.Locale;

/**
 * The {@code unicomm.nvshmem.*} settings of one communicator, read once at open (before any native
 * resource is made, so a bad value fails with nothing to undo).
 *
 * @param timeout         the job's timeout, which bounds every wait
 * @param finalizeOnClose {@code nvshmem.finalize}: nvshmem_finalize when the last communicator closes
 * @param bounceBytes     {@code nvshmem.bounceBytes}: pinned bounce and device staging buffer for host data
 * @param scratchBytes    {@code nvshmem.scratchBytes}: data part of the symmetric scratch (4096 for a one-PE communicator)
 * @param moeSms          {@code nvshmem.moe.sms}: blocks per MoE kernel, or null for this PE's share of the SMs
 * @param moeLlSms        {@code nvshmem.moe.ll.sms}: blocks per low-latency MoE kernel, or null for the whole GPU
 *                        (this PE's share when shared)
 * @param moeProfile      {@code nvshmem.moe.profile}: time the MoE kernels (CUDA events) and print them when a buffer
 *                        closes. 0 off ({@code false}), 1 events as the host launches ({@code true} or {@code launch}),
 *                        2 each timed operation queued behind a short device wait and a barrier of all PEs
 *                        ({@code aligned}, DeepEP's bench method: no launch gap and no host skew between the PEs inside the events)
 * @param moeTransport    {@code nvshmem.moe.transport}: auto (loads/stores where every heap is mapped, else NVSHMEM),
 *                        loadstore or nvshmem
 * @param moeElastic      {@code nvshmem.moe.elastic} (default: {@code elastic}, the job's elastic mode): a peer that does not
 *                        answer a MoE kernel within the timeout leaves the buffer's active ranks and the operation goes on
 *                        without it (docs/moe.md, "Elastic GPU"), instead of failing with a timeout
 */
public record NvshmemSettings(
        Duration timeout,
        boolean finalizeOnClose,
        long bounceBytes,
        long scratchBytes,
        String moeSms,
        String moeLlSms,
        int moeProfile,
        String moeTransport,
        boolean moeElastic) {

    static NvshmemSettings of(CommConfig config, boolean solo) {
        boolean finalizeOnClose = Boolean.parseBoolean(config.property("nvshmem.finalize", "false"));
        String moeSms = config.property("nvshmem.moe.sms", null);
        String moeLlSms = config.property("nvshmem.moe.ll.sms", null);
        int moeProfile = moeProfileMode(config.property("nvshmem.moe.profile", "false"));
        String moeTransport =
                config.property("nvshmem.moe.transport", "auto").trim().toLowerCase(Locale.ROOT);
        long bounceBytes = Long.parseLong(config.property("nvshmem.bounceBytes", Long.toString(4L << 20)));
        long scratchBytes =
                solo ? 4096 : Long.parseLong(config.property("nvshmem.scratchBytes", Long.toString(4L << 20)));
        boolean moeElastic =
                Boolean.parseBoolean(config.property("nvshmem.moe.elastic", Boolean.toString(config.elastic())));
        return new NvshmemSettings(
                config.timeout(),
                finalizeOnClose,
                bounceBytes,
                scratchBytes,
                moeSms,
                moeLlSms,
                moeProfile,
                moeTransport,
                moeElastic);
    }

    static int moeProfileMode(String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "false" -> 0;
            case "true", "launch" -> 1;
            case "aligned" -> 2;
            default ->
                throw new IllegalArgumentException(
                        "unicomm.nvshmem.moe.profile must be false, true (= launch) or aligned, got '" + value + "'");
        };
    }

    /** {@code moe.sms} or {@code moe.ll.sms} as given (null: the default). */
    public String moeSms(boolean lowLatency) {
        return lowLatency ? moeLlSms : moeSms;
    }
}
