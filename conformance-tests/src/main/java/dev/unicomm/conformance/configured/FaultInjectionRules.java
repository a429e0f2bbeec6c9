package dev.unicomm.conformance.configured;

import dev.unicomm.conformance.FaultInjectionSuite;
import dev.unicomm.conformance.OnlyWhenNamed;

/**
 * {@link FaultInjectionSuite} configured entirely by {@link dev.unicomm.conformance.KitSettings};
 * selected with {@code --suite FaultInjection}.
 */
@OnlyWhenNamed("slow: every rule SIGKILLs a rank and restarts the job")
public class FaultInjectionRules extends FaultInjectionSuite {}
