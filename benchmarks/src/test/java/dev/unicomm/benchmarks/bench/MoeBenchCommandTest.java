package dev.unicomm.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import javax.imageio.ImageIO;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MoeBenchCommandTest {
    @TempDir
    Path tmp;

    /**
     * The whole command with two real ranks on tiny shapes: every operation (the cached-handle dispatches included)
     * measured and verified against the reference, each beside its floor from a stand-in roofline program.
     */
    @Test
    void benchMoeRunsVerifiesAndWritesCsv() throws Exception {
        Path csv = tmp.resolve("moe.csv"), roof = tmp.resolve("roof.sh");
        // Stand-in for benchmarks/reference/nvlink_ref: 10 GB/s links (the best of the all_* lines), 20 GB/s copies.
        Files.writeString(
                roof,
                "#!/bin/sh\necho \"roof,hbm_copy,$UNICOMM_RANK,-1,1000,1,20.0\"\n"
                        + "echo \"roof,all_pull,$UNICOMM_RANK,-1,1000,1,10.0\"\necho \"roof,all_push,$UNICOMM_RANK,-1,1000,1,5.0\"\n");
        assertTrue(roof.toFile().setExecutable(true));
        String out = Bench.succeeds(
                "bench moe -n 2 --tokens 64 --hidden 256 --experts 8 --topk 2 --ll-tokens 8 --iters 1 --ll-iters 1 --csv "
                        + csv + " --roofline " + roof);
        assertTrue(
                out.contains("normal dispatch fp8 cached")
                        && out.contains("ll combine")
                        && out.contains("low-latency dispatch + combine")
                        && out.contains("frac host")
                        && out.contains("links 10.0 GB/s")
                        && out.contains("ll dispatch fp8 (8 tokens), host wall split: call returns")
                        && out.contains("ll dispatch fp8 (8 tokens): quantising its tokens alone")
                        && out.contains("normal mode: algorithm flat (1 host: ")
                        && out.contains("no byte crosses a host"),
                out);
        List<String> lines = Files.readAllLines(csv);
        // header + 8 operations (hidden 256: FP8 dispatch in both modes; BF16 and FP8 dispatch with a cached handle)
        assertEquals(9, lines.size(), String.join("\n", lines));
        for (String l : lines.subList(1, lines.size())) {
            String[] f = l.split(",", -1);
            assertEquals("yes", f[8], "verified: " + l);
            assertTrue(Double.parseDouble(f[3]) > 0 && Double.parseDouble(f[5]) > 0, "time and bound: " + l);
            assertTrue(Long.parseLong(f[2]) > 0, "bytes: " + l);
            // 2 ranks, 8 experts, top-2: every rank sends and receives rows, so the floor is the link term, positive.
            assertTrue(Double.parseDouble(f[12]) > 0, "floor: " + l);
            assertEquals("", f[11], "no GPU time without --gpu-time: " + l);
        }
    }

    /** A sweep over two token counts: one job each, a plot of both points per operation, and a JFR file per job and rank. */
    @Test
    void benchMoeSweepPlotsAndRecords() throws Exception {
        Path csv = tmp.resolve("moe.csv"), png = tmp.resolve("moe.png"), jfr = tmp.resolve("moe.jfr");
        Bench.succeeds("bench moe -n 2 --mode normal --tokens 32,64 --hidden 256 --experts 8 --topk 2 --iters 1 --csv "
                + csv + " --plot " + png + " --plot-size 640x480 --jfr " + jfr);
        List<String> lines = Files.readAllLines(csv);
        // header + 5 operations (dispatch, cached dispatch, FP8 dispatch and its cached form, combine) x 2 token counts
        assertEquals(11, lines.size(), String.join("\n", lines));
        assertEquals(
                List.of("32", "32", "32", "32", "32", "64", "64", "64", "64", "64"),
                lines.subList(1, 11).stream().map(l -> l.split(",")[10]).toList());
        BufferedImage img = ImageIO.read(png.toFile());
        assertEquals(640, img.getWidth());
        assertEquals(480, img.getHeight());
        for (String job : List.of("t32", "t64")) {
            for (int rank = 0; rank < 2; rank++) {
                Path file = tmp.resolve("moe-n2-" + job + "-rank" + rank + ".jfr");
                Set<String> types = RecordingFile.readAllEvents(file).stream()
                        .map(e -> e.getEventType().getName())
                        .collect(Collectors.toSet());
                assertTrue(
                        types.containsAll(Set.of("dev.unicomm.CommunicatorOpen", "dev.unicomm.Moe")),
                        file + ": " + types);
            }
        }
    }

    @Test
    void plotWithoutASweepIsRejectedBeforeRunning() {
        var run = Bench.capture("bench moe --plot " + tmp.resolve("x.png"));
        assertTrue(run.code() != 0);
        assertTrue(run.err().contains("several token counts"), run.err());
    }

    @Test
    void badOptionsAreRejected() {
        assertTrue(Bench.capture("bench moe -n 3 --experts 8").code() != 0); // 8 experts over 3 ranks
        assertTrue(Bench.capture("bench moe --mode fast").code() != 0);
        assertTrue(Bench.capture("bench moe --iters 0").code() != 0);
    }

    /** --ll-stream: rejected without the low-latency mode, and on a host backend with the reason (the job fails, naming it). */
    @Test
    void llStreamNeedsLowLatencyModeAndADeviceBackend() {
        var normal = Bench.capture("bench moe --ll-stream --mode normal");
        assertTrue(normal.code() != 0);
        assertTrue(normal.err().contains("--ll-stream times the low-latency FP8 dispatch"), normal.err());
        var host = Bench.capture(
                "bench moe --ll-stream --mode ll -n 2 --hidden 256 --experts 8 --topk 2 --ll-tokens 8 --ll-iters 1");
        assertTrue(host.code() != 0);
        assertTrue(host.err().contains("the stream-ordered path is for device backends"), host.err());
    }
}
