package dev.unicomm.api;

/**
 * Routing computed from {@code topkIdx} before a normal dispatch (DeepEP's {@code get_dispatch_layout}).
 *
 * @param tokensPerRank   {@code [R]} INT32: tokens with at least one expert on each rank
 * @param tokensPerExpert {@code [E]} INT32: (token, slot) pairs selecting each expert
 * @param isTokenInRank   {@code [T, R]} BOOL
 */
public record MoeLayout(Tensor tokensPerRank, Tensor tokensPerExpert, Tensor isTokenInRank) {}
