package dev.unicomm.api;

/**
 * Result of a low-latency combine.
 *
 * @param x    {@code [T, H]} BF16 weighted sum over each token's experts
 * @param hook waits for the data; {@code x} is valid after it ran
 */
public record LowLatencyCombined(Tensor x, ReceiveHook hook) {}
