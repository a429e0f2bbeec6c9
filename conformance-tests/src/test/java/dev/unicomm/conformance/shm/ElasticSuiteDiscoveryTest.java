package dev.unicomm.conformance.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.conformance.ElasticSuite;
import dev.unicomm.conformance.KitSuites;
import dev.unicomm.conformance.configured.ElasticRules;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The kit finds the elastic suite by scanning, runs it only when named, and its rules are optional (capability-gated). */
class ElasticSuiteDiscoveryTest {
    @Test
    void foundByNameNotInTheDefaultRunAndOptionalOnly() {
        assertTrue(
                KitSuites.abstractSuites().contains(ElasticSuite.class),
                KitSuites.abstractSuites().toString());
        assertEquals(ElasticRules.class, KitSuites.byName("Elastic"));
        assertFalse(KitSuites.defaultRun().contains(ElasticRules.class), "it SIGKILLs ranks: only when named");
        List<String> rules = KitSuites.rules(ElasticRules.class);
        assertEquals(5, rules.size(), rules.toString());
        for (String r : rules) assertTrue(r.startsWith("optional_elastic_"), r);
    }
}
