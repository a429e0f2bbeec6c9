package dev.unicomm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.testsupport.ConsoleCapture.Captured;
import org.junit.jupiter.api.Test;

class InfoCommandTest {
    private static String run(String... args) {
        Captured r = CliRunner.run(args);
        assertEquals(0, r.code(), r.log());
        return r.out();
    }

    @Test
    void infoPrintsAReport() {
        String out = run("info");
        assertTrue(out.startsWith("unicomm backends ("), out);
        assertTrue(out.contains("default backend:"), out);
        // cli ships shm, rdma, nvshmem and ascend: which of them a job across hosts may use (issue 46)
        assertTrue(out.contains("across hosts: ") && out.contains("rdma") && out.contains("; one host only: shm"), out);
    }

    /** A backend's detail line (what it found here) is printed under it; ucx reports its UCX version and transports. */
    @Test
    void infoShowsWhatAnAvailableBackendFound() {
        var ucx = dev.unicomm.spi.BackendRegistry.load().providers().stream()
                .filter(p -> p.name().equals("ucx"))
                .findFirst()
                .orElseThrow();
        var a = ucx.availability();
        org.junit.jupiter.api.Assumptions.assumeTrue(a.available(), () -> "ucx unavailable here: " + a.cause());
        String out = run("info");
        String block = out.substring(out.indexOf("  ucx "));
        assertTrue(
                block.matches("(?s)  ucx .*?\\n      detail: UCX \\d+\\.\\d+\\.\\d+, transports: [a-z_0-9, ]+.*"), out);
        assertTrue(block.contains("P2P_ENDPOINTS"), out);
        assertTrue(run("info", "--json").contains("\"detail\":\"UCX "), "the JSON carries the detail too");
    }

    /**
     * {@code info --settings}: every module's keys (comm-api, collectives, each backend the cli ships, the kit), each with
     * its value and where it came from; a system property wins over the default, and a secret is never printed.
     */
    @org.junit.jupiter.api.parallel.ResourceLock("system-properties")
    @Test
    void infoSettingsPrintsEveryKeyWithItsValueAndSource() {
        System.setProperty("unicomm.collectives.slot.bytes", "131072");
        System.setProperty("unicomm.token", "s3cret-token");
        try {
            String out = run("info", "--settings");
            assertTrue(out.startsWith("unicomm settings ("), out);
            assertTrue(
                    out.contains(
                            "unicomm.collectives.slot.bytes (UNICOMM_COLLECTIVES_SLOT_BYTES) = 131072  [system property unicomm.collectives.slot.bytes]"),
                    out);
            assertTrue(
                    out.contains("unicomm.token (UNICOMM_TOKEN) = (set, not shown)  [system property unicomm.token]"),
                    out);
            assertTrue(!out.contains("s3cret-token"), "a token must never be printed:\n" + out);
            for (String key : java.util.List.of(
                    "unicomm.timeout",
                    "unicomm.heap.size",
                    "unicomm.shm.dir",
                    "unicomm.rdma.device",
                    "unicomm.ucx.library",
                    "unicomm.nvshmem.moe.sms",
                    "unicomm.ascend.device",
                    "unicomm.kit.ranks",
                    "unicomm.moe.algorithm",
                    "unicomm.rma.reference"))
                assertTrue(out.contains("  " + key + " ("), () -> key + " missing from:\n" + out);
            if (System.getenv("UNICOMM_MOE_ALGORITHM") == null)
                assertTrue(out.contains("unicomm.moe.algorithm (UNICOMM_MOE_ALGORITHM) = auto  [default]"), out);
            String json = run("info", "--settings", "--json").trim();
            assertTrue(
                    json.startsWith("[{\"key\":")
                            && json.contains("\"source\":\"system property unicomm.collectives.slot.bytes\""),
                    json);
        } finally {
            System.clearProperty("unicomm.collectives.slot.bytes");
            System.clearProperty("unicomm.token");
        }
    }

    @Test
    void infoJsonIsAnArray() {
        String out = run("info", "--json").trim();
        assertTrue(out.startsWith("[") && out.contains("]"), out);
    }

    @Test
    void jsonEscapesControlCharacters() {
        assertEquals("\"a\\\"b\\n\\u0001\"", Json.str("a\"b\n\u0001"));
    }

    /**
     * An out-of-tree backend jar (compiled here into a folder that is not on the class path) is seen by
     * {@code unicomm info --cp} and not without it.
     */
    @Test
    void infoSeesAnOutOfTreeBackendThroughCp(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path src = dir.resolve("src/oot/OutOfTreeProvider.java");
        java.nio.file.Files.createDirectories(src.getParent());
        java.nio.file.Files.writeString(src, """
                package oot;
                public final class OutOfTreeProvider implements dev.unicomm.spi.CommBackendProvider {
                    public String name() { return "out-of-tree"; }
                    public int priority() { return -1000; }
                    public java.util.Set<dev.unicomm.api.Capability> capabilities() { return java.util.Set.of(); }
                    public dev.unicomm.spi.Availability availability() {
                        return dev.unicomm.spi.Availability.no("an example that never runs", "none needed");
                    }
                    public dev.unicomm.spi.BackendCommunicator open(dev.unicomm.spi.BackendContext c) {
                        throw new UnsupportedOperationException();
                    }
                }
                """);
        java.nio.file.Path classes = dir.resolve("classes");
        Process javac = new ProcessBuilder(
                        java.nio.file.Path.of(System.getProperty("java.home"), "bin", "javac")
                                .toString(),
                        "-d",
                        classes.toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        src.toString())
                .inheritIO()
                .start();
        assertEquals(0, javac.waitFor(), "javac of the out-of-tree provider");
        java.nio.file.Path services = classes.resolve("META-INF/services/dev.unicomm.spi.CommBackendProvider");
        java.nio.file.Files.createDirectories(services.getParent());
        java.nio.file.Files.writeString(services, "oot.OutOfTreeProvider\n");
        assertTrue(!run("info").contains("out-of-tree"), "not on the class path without --cp");
        String out = run("info", "--cp", classes.toString());
        assertTrue(out.contains("out-of-tree") && out.contains("an example that never runs"), out);
    }
}
