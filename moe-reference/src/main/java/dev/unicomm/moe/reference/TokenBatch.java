package dev.unicomm.moe.reference;

/**
 * One rank's input to a dispatch, as plain arrays (little-endian rows as a tensor's bytes).
 *
 * @param tokens      {@code T}
 * @param x           {@code T} rows: BF16 ({@code 2H} bytes each) or FP8 e4m3 ({@code H} bytes each, with scales)
 * @param scales      {@code [T, H/128]} for FP8 rows, else {@code null}
 * @param topkIdx     {@code [T, K]} expert ids, -1 = unused slot
 * @param topkWeights {@code [T, K]} or {@code null}
 */
public record TokenBatch(int tokens, byte[] x, float[] scales, long[] topkIdx, float[] topkWeights) {}
