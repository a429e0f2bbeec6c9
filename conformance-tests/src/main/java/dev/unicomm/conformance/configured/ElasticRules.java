package dev.unicomm.conformance.configured;

import dev.unicomm.conformance.ElasticSuite;
import dev.unicomm.conformance.OnlyWhenNamed;

/**
 * {@link ElasticSuite} configured entirely by {@link dev.unicomm.conformance.KitSettings};
 * selected with {@code --suite Elastic}.
 */
@OnlyWhenNamed("slow: every rule SIGKILLs a rank and restarts the job")
public class ElasticRules extends ElasticSuite {}
