package dev.unicomm.conformance.configured;

import dev.unicomm.conformance.HeapSuite;

/** {@link HeapSuite} configured entirely by {@link dev.unicomm.conformance.KitSettings} (used by {@code unicomm conformance}). */
public class HeapRules extends HeapSuite {}
