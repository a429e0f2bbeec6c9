package dev.unicomm.conformance.configured;

import dev.unicomm.conformance.FaultInjectionSuite;

/**
 * {@link FaultInjectionSuite} configured entirely by {@link dev.unicomm.conformance.KitSettings};
 * not in the default run of {@code unicomm conformance} (each rule restarts the job), selected with
 * {@code --suite FaultInjection}.
 */
public class FaultInjectionRules extends FaultInjectionSuite {}
