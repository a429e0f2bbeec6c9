package dev.unicomm.api;

/** Reductions of {@link Collectives#allreduce} and {@link Collectives#reduceScatter}. */
public enum ReduceOp {
    SUM,
    MIN,
    MAX,
    PROD
}
