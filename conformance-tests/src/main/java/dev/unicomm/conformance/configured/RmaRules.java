package dev.unicomm.conformance.configured;

import dev.unicomm.conformance.RmaSuite;

/** {@link RmaSuite} configured entirely by {@link dev.unicomm.conformance.KitSettings} (used by {@code unicomm conformance}). */
public class RmaRules extends RmaSuite {}
