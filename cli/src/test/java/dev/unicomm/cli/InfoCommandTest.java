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

    @Test void infoPrintsAReport() {
        String out = run("info");
        assertTrue(out.startsWith("unicomm backends ("), out);
        assertTrue(out.contains("default backend:"), out);
        // cli ships shm, rdma, nvshmem and ascend: which of them a job across hosts may use (issue 46)
        assertTrue(out.contains("across hosts: ") && out.contains("rdma") && out.contains("; one host only: shm"), out);
    }

    /** A backend's detail line (what it found here) is printed under it; ucx reports its UCX version and transports. */
    @Test void infoShowsWhatAnAvailableBackendFound() {
        var ucx = dev.unicomm.spi.BackendRegistry.load().providers().stream().filter(p -> p.name().equals("ucx")).findFirst().orElseThrow();
        var a = ucx.availability();
        org.junit.jupiter.api.Assumptions.assumeTrue(a.available(), () -> "ucx unavailable here: " + a.cause());
        String out = run("info");
        String block = out.substring(out.indexOf("  ucx "));
        assertTrue(block.matches("(?s)  ucx .*?\\n      detail: UCX \\d+\\.\\d+\\.\\d+, transports: [a-z_0-9, ]+.*"), out);
        assertTrue(block.contains("P2P_ENDPOINTS"), out);
        assertTrue(run("info", "--json").contains("\"detail\":\"UCX "), "the JSON carries the detail too");
    }

    @Test void infoJsonIsAnArray() {
        String out = run("info", "--json").trim();
        assertTrue(out.startsWith("[") && out.contains("]"), out);
    }

    @Test void jsonEscapesControlCharacters() {
        assertEquals("\"a\\\"b\\n\\u0001\"", Json.str("a\"b\n\u0001"));
    }

    /**
     * An out-of-tree backend jar (compiled here into a folder that is not on the class path) is seen by
     * {@code unicomm info --cp} and not without it.
     */
    @Test void infoSeesAnOutOfTreeBackendThroughCp(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
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
        Process javac = new ProcessBuilder(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "javac").toString(),
                "-d", classes.toString(), "-cp", System.getProperty("java.class.path"), src.toString()).inheritIO().start();
        assertEquals(0, javac.waitFor(), "javac of the out-of-tree provider");
        java.nio.file.Path services = classes.resolve("META-INF/services/dev.unicomm.spi.CommBackendProvider");
        java.nio.file.Files.createDirectories(services.getParent());
        java.nio.file.Files.writeString(services, "oot.OutOfTreeProvider\n");
        assertTrue(!run("info").contains("out-of-tree"), "not on the class path without --cp");
        String out = run("info", "--cp", classes.toString());
        assertTrue(out.contains("out-of-tree") && out.contains("an example that never runs"), out);
    }
}
