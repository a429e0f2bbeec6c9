package dev.unicomm.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.launch.JobSpec;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The mixins the bench commands share show users the same options, defaults and texts as the blocks they replaced. */
class SharedOptionsTest {
    @TempDir
    Path dir;

    private static String usage(String subcommand) {
        return new CommandLine(new BenchCommand())
                .getSubcommands()
                .get(subcommand)
                .getUsageMessage(CommandLine.Help.Ansi.OFF);
    }

    /** One usage line: the option, its label and its description, columns folded to one space. */
    private static boolean hasLine(String usage, String line) {
        return usage.lines().map(l -> l.strip().replaceAll("\\s+", " ")).anyMatch(line::equals);
    }

    @Test
    void jobOptionsKeepTheirNamesDefaultsAndTexts() {
        for (String c : List.of("moe", "soak")) {
            String u = usage(c);
            assertTrue(hasLine(u, "--backend=<backend> Backend (default: shm)."), u);
            assertTrue(hasLine(u, "-n=<ranks> Ranks (default: 4)."), u);
        }
    }

    @Test
    void csvOptionKeepsItsNameAndText() {
        for (String c : List.of("rma", "collectives", "moe", "p2p")) {
            String u = usage(c);
            assertTrue(hasLine(u, "--csv=<csv> Also write the rows as CSV to this file."), u);
        }
        assertFalse(usage("soak").contains("--csv"), "soak prints totals, no rows");
    }

    @Test
    void jobOptionsMakeTheJobTheUserAskedFor() {
        MoeBenchCommand moe = new MoeBenchCommand();
        new CommandLine(moe).parseArgs("-n", "3", "--backend", "rdma");
        JobSpec spec = moe.options.spec(MoeBenchWorker.class, "a", "b");
        assertEquals(3, spec.ranks());
        assertEquals("rdma", spec.backend());
        assertEquals(MoeBenchWorker.class.getName(), spec.mainClass());
        assertEquals(List.of("a", "b"), spec.args());
    }

    @Test
    void csvIsWrittenOnlyWhenAskedIntoMissingFolders() throws Exception {
        CsvOption none = new CsvOption();
        none.write(List.of("h", "1")); // no --csv: nothing to do, nothing thrown
        assertFalse(none.wanted());

        CsvOption csv = new CsvOption();
        new CommandLine(csv).parseArgs("--csv", dir.resolve("a/b/rows.csv").toString());
        PrintStream old = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            csv.write(List.of("op,bytes", "put,8"));
        } finally {
            System.setOut(old);
        }
        assertEquals(List.of("op,bytes", "put,8"), Files.readAllLines(dir.resolve("a/b/rows.csv")));
        assertEquals(
                "wrote " + dir.resolve("a/b/rows.csv"),
                out.toString(StandardCharsets.UTF_8).strip());
    }
}
