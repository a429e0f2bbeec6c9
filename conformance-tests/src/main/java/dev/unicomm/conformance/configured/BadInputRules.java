package dev.unicomm.conformance.configured;

import dev.unicomm.conformance.BadInputSuite;

/** {@link BadInputSuite} configured entirely by {@link dev.unicomm.conformance.KitSettings} (used by {@code unicomm conformance}). */
public class BadInputRules extends BadInputSuite {}
