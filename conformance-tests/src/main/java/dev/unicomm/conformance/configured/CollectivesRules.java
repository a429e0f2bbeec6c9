package dev.unicomm.conformance.configured;

import dev.unicomm.conformance.collectives.CollectivesSuite;

/** {@link CollectivesSuite} configured entirely by {@link dev.unicomm.conformance.KitSettings} (used by {@code unicomm conformance}). */
public class CollectivesRules extends CollectivesSuite {}
