package dev.unicomm.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.unicomm.api.Unicomm;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import javax.imageio.ImageIO;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bench p2p --plot / --jfr}: the pieces run everywhere; the whole command where RDMA endpoints work. */
class P2pBenchCommandTest {
    @TempDir
    Path dir;

    @Test
    void plotOfP2pRowsIsAPngOfTheRequestedSize() throws Exception {
        List<P2pBenchCommand.Row> rows = List.of(
                new P2pBenchCommand.Row("READ", 32, 8192, 130, 3.0, 16.9),
                new P2pBenchCommand.Row("READ", 32, 65536, 34, 3.0, 14.6),
                new P2pBenchCommand.Row("WRITE", 32, 8192, 151, 3.0, 24.7),
                new P2pBenchCommand.Row("WRITE", 32, 65536, 29, 3.1, 19.2));
        PlotOption option = new PlotOption();
        option.file = dir.resolve("p2p.png");
        option.size = "700x500";
        option.write(P2pBenchCommand.plot(rows, "rdma"), "p2p");
        BufferedImage img = ImageIO.read(option.file.toFile());
        assertEquals(700, img.getWidth());
        assertEquals(500, img.getHeight());
    }

    @Test
    void jfrRecordsThisProcessWithOneEventPerRow() throws Exception {
        JfrOption option = new JfrOption();
        option.file = dir.resolve("p2p.jfr");
        BenchRecording recording = option.recordHere("p2p");
        try {
            P2pRowEvent event = new P2pRowEvent();
            event.begin();
            P2pBenchCommand.commit(event, new P2pBenchCommand.Row("WRITE", 32, 65536, 29, 3.1, 0));
        } finally {
            recording.close();
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(option.file);
        Set<String> types = events.stream().map(e -> e.getEventType().getName()).collect(Collectors.toSet());
        assertTrue(types.contains("jdk.JVMInformation"), "the JDK's default events are recorded too: " + types);
        List<RecordedEvent> rows = events.stream()
                .filter(e -> e.getEventType().getName().equals("dev.unicomm.bench.P2pRow"))
                .toList();
        assertEquals(1, rows.size(), "one row event, types: " + types);
        RecordedEvent row = rows.getFirst();
        assertEquals("WRITE", row.getString("operation"));
        assertEquals(65536, row.getLong("blockBytes"));
        assertEquals(29L * 32 * 65536, row.getLong("bytes"));
        assertEquals(29, row.getLong("trips"));
    }

    @Test
    void plotWithOneBlockSizeIsRejectedBeforeAnyTransfer() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream old = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        int code;
        try {
            code = Bench.run(
                    "bench",
                    "p2p",
                    "--block-sizes",
                    "64K",
                    "--plot",
                    dir.resolve("x.png").toString());
        } finally {
            System.setErr(old);
        }
        assertNotEquals(0, code);
        assertTrue(
                err.toString(StandardCharsets.UTF_8).contains("two or more --block-sizes"),
                err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aPairNeedsBothRoleAndExchangeAndAKnownRole() {
        assertTrue(fails("--role", "initiator").contains("--role and --exchange go together"));
        assertTrue(fails("--exchange", dir.toString()).contains("--role and --exchange go together"));
        assertTrue(fails("--role", "server", "--exchange", dir.toString())
                .contains("--role is 'initiator' or 'target', got 'server'"));
    }

    /** Runs {@code bench p2p ARGS}, expects a failure, returns what it printed to stderr. */
    private static String fails(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream old = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        int code;
        try {
            List<String> all = new java.util.ArrayList<>(List.of("bench", "p2p"));
            all.addAll(List.of(args));
            code = Bench.run(all.toArray(String[]::new));
        } finally {
            System.setErr(old);
        }
        assertNotEquals(0, code);
        return err.toString(StandardCharsets.UTF_8);
    }

    /** The real command; runs only where the rdma backend has a usable device (the soft-RoCE VM, real NICs). */
    @Test
    void benchP2pPlotsAndRecordsWhereRdmaWorks() throws Exception {
        boolean usable;
        String why;
        try {
            usable = !Unicomm.endpoints("rdma").devices().isEmpty();
            why = "no RDMA device";
        } catch (RuntimeException e) {
            usable = false;
            why = e.getMessage();
        }
        assumeTrue(usable, "RDMA endpoints do not work here: " + why);
        Path png = dir.resolve("p2p.png"), jfr = dir.resolve("p2p.jfr");
        int code = Bench.run(
                "bench",
                "p2p",
                "--ops",
                "write",
                "--block-sizes",
                "8K,64K",
                "--batch",
                "4",
                "--duration",
                "0.2",
                "--plot",
                png.toString(),
                "--plot-size",
                "600x400",
                "--jfr",
                jfr.toString());
        assertEquals(0, code);
        assertEquals(600, ImageIO.read(png.toFile()).getWidth());
        assertEquals(
                2,
                RecordingFile.readAllEvents(jfr).stream()
                        .filter(e -> e.getEventType().getName().equals("dev.unicomm.bench.P2pRow"))
                        .count());
        assertTrue(Files.size(png) > 0);
    }
}
