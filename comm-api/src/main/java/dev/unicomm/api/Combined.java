package dev.unicomm.api;

/**
 * Result of a normal combine on one rank.
 *
 * @param x           {@code [T, H]} BF16: per source token, the sum over the ranks that received it
 * @param topkWeights {@code [T, K]} FP32 summed the same way, or {@code null} if none were given
 */
public record Combined(Tensor x, Tensor topkWeights) {}
