package dev.unicomm.api;

/**
 * Routing computed from {@code topkIdx} before a normal dispatch (DeepEP's {@code get_dispatch_layout}).
 *
 * @param tokensPerRank   {@code [R]} INT32: tokens with at least one expert on each rank
 * @param tokensPerExpert {@code [E]} INT32: (token, slot) pairs selecting each expert
 * @param isTokenInRank   {@code [T, R]} BOOL
 *
 * <p>For a buffer opened with an {@link ExpertMask}, {@code R} is the original job's size and {@code E}
 * the original expert count: the layout of what is sent, so inactive ranks and their experts show 0.
 */
public record MoeLayout(Tensor tokensPerRank, Tensor tokensPerExpert, Tensor isTokenInRank) {}
