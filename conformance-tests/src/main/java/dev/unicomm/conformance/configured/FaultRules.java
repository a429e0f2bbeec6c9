package dev.unicomm.conformance.configured;

import dev.unicomm.conformance.FaultSuite;

/** {@link FaultSuite} configured entirely by {@link dev.unicomm.conformance.KitSettings} (used by {@code unicomm conformance}). */
public class FaultRules extends FaultSuite {}
