package dev.unicomm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.testsupport.ConsoleCapture.Captured;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code unicomm conformance} runs real kit suites against backend-shm and writes its reports. */
class ConformanceCommandTest {

    @Test
    void runsSuitesAndWritesJsonAndJunitXml(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("report.json");
        Path xml = dir.resolve("xml");
        Captured r = CliRunner.line(
                "conformance --backend shm -n 2 --suite Heap,Teams --json " + json + " --junit-xml " + xml);
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(
                r.out().contains("required_heap_same_offsets_everywhere")
                        && r.out().contains("PASSED"),
                r.out());
        assertTrue(r.out().matches("(?s).*\\d+ rules: \\d+ passed, 0 failed, \\d+ skipped.*"), r.out());
        String j = Files.readString(json);
        assertTrue(
                j.contains("\"backend\": \"shm\"")
                        && j.contains("\"ranks\": 2")
                        && j.contains("\"rule\":\"optional_teams_split_2d\""),
                j);
        assertTrue(j.contains("\"failed\": 0") && j.contains("\"capabilities\": [\"ATOMICS\""), j);
        try (Stream<Path> files = Files.list(xml)) {
            List<Path> reports = files.filter(p -> p.getFileName().toString().endsWith(".xml"))
                    .toList();
            assertEquals(1, reports.size(), "one JUnit XML report: " + reports);
            String x = Files.readString(reports.getFirst());
            assertTrue(x.contains("<testsuite") && x.contains("required_heap_allocate_free"), x);
        }
    }

    @Test
    void runsSingleRules() {
        Captured r = CliRunner.line(
                "conformance --backend shm -n 2 --quiet --rule required_rma_put_all_sizes,optional_atomics_swap_contention");
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("2 rules: 2 passed, 0 failed, 0 skipped"), r.out());
        assertTrue(r.out().contains("declared capabilities: ATOMICS,"), r.out());
    }

    @Test
    void unknownRuleIsAUsageError() {
        Captured r = CliRunner.line("conformance --backend shm --suite Heap --rule required_rma_put_all_sizes");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("no rule 'required_rma_put_all_sizes' in the selected suites"), r.err());
    }

    @Test
    void unknownBackendIsAUsageError() {
        Captured r = CliRunner.run("conformance", "--backend", "no-such-backend");
        assertEquals(2, r.code());
        assertTrue(
                r.err().contains("unknown backend 'no-such-backend'") && r.err().contains("shm"), r.err());
    }

    @Test
    void unknownSuiteIsAUsageError() {
        Captured r = CliRunner.run("conformance", "--backend", "shm", "--suite", "Nope");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("unknown suite 'Nope'") && r.err().contains("Rma"), r.err());
    }
}
