/**
 * The plain-Java reference of unicomm's MoE semantics: what every MoE implementation is compared
 * with. Needs the API only, no test framework, so the benchmarks can check their results with it.
 */
module dev.unicomm.moe.reference {
    requires transitive dev.unicomm.api;

    exports dev.unicomm.moe.reference;
}
