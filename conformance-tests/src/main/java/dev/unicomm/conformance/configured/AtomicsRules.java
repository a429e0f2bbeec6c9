package dev.unicomm.conformance.configured;

import dev.unicomm.conformance.AtomicsSuite;

/** {@link AtomicsSuite} configured entirely by {@link dev.unicomm.conformance.KitSettings} (used by {@code unicomm conformance}). */
public class AtomicsRules extends AtomicsSuite {}
