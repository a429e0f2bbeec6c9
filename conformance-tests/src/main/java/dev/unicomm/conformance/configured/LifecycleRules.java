package dev.unicomm.conformance.configured;

import dev.unicomm.conformance.LifecycleSuite;

/** {@link LifecycleSuite} configured entirely by {@link dev.unicomm.conformance.KitSettings} (used by {@code unicomm conformance}). */
public class LifecycleRules extends LifecycleSuite {}
