package dev.unicomm.conformance.configured;

import dev.unicomm.conformance.TeamsSuite;

/** {@link TeamsSuite} configured entirely by {@link dev.unicomm.conformance.KitSettings} (used by {@code unicomm conformance}). */
public class TeamsRules extends TeamsSuite {}
