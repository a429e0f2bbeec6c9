package dev.unicomm.conformance.configured;

import dev.unicomm.conformance.SignalSuite;

/** {@link SignalSuite} configured entirely by {@link dev.unicomm.conformance.KitSettings} (used by {@code unicomm conformance}). */
public class SignalRules extends SignalSuite {}
