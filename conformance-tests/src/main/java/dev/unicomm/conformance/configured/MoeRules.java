package dev.unicomm.conformance.configured;

import dev.unicomm.conformance.MoeSuite;

/** {@link MoeSuite} configured entirely by {@link dev.unicomm.conformance.KitSettings} (used by {@code unicomm conformance}). */
public class MoeRules extends MoeSuite {}
