package dev.unicomm.backend.nvshmem.internal.moe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.backend.nvshmem.internal.NvMoeArgs;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The host-side plan of the MoE kernels, checked without a GPU: argument block, memory layout, limits, errors. */
class MoeKernelPlanTest {

    /** Java fills the kernels' argument block by index: the order must be ucn_moe.h's field order. */
    @Test
    void argumentIndicesFollowTheNativeStruct() throws IOException, IllegalAccessException {
        String header = Files.readString(Path.of("src/main/native/ucn_moe.h"));
        String body = header.substring(header.indexOf("typedef struct {") + 16, header.indexOf("} ucn_moe_args;"));
        List<String> fields = new ArrayList<>();
        Matcher m = Pattern.compile("long long ([a-z0-9_, ]+);").matcher(body.replaceAll("/\\*.*?\\*/", ""));
        while (m.find())
            for (String f : m.group(1).split(",")) fields.add(f.strip().toUpperCase(Locale.ROOT));
        assertEquals(NvMoeArgs.WORDS, fields.size(), "field count of ucn_moe_args");
        for (int i = 0; i < fields.size(); i++) {
            Field f;
            try {
                f = NvMoeArgs.class.getField(fields.get(i));
            } catch (NoSuchFieldException e) {
                throw new AssertionError("NvMoeArgs has no constant for native field " + fields.get(i));
            }
            assertTrue(Modifier.isStatic(f.getModifiers()));
            assertEquals(i, f.getInt(null), "index of " + fields.get(i));
        }
    }

    @Test
    void normalLayoutFitsTheSizeHintAndDoesNotOverlap() {
        for (int ranks : new int[] {1, 2, 4, 8}) {
            MoeConfig cfg = new MoeConfig(MoeConfig.Mode.NORMAL, 256, 7168, 4096, 8, true);
            MoeSymLayout l = MoeSymLayout.of(cfg, ranks);
            long rows = (long) ranks * 4096;
            assertTrue(l.done() >= l.cnt() + 2L * ranks * (ranks + 32L) * 8 || ranks > 8);
            assertTrue(l.ready() >= l.done() + 8L * ranks);
            assertTrue(l.recv() >= l.ready() + 8L * ranks);
            assertEquals(l.recv() + rows * 7168, l.recvScales(), "FP8 scales follow the H-byte rows");
            assertTrue(
                    l.recvScales() + rows * (7168 / 128) * 4 <= l.recv() + rows * 2 * 7168,
                    "FP8 rows and scales fit the BF16 area");
            assertTrue(l.recvIdx() >= l.recv() + rows * 2 * 7168);
            assertTrue(l.recvW() >= l.recvIdx() + rows * 8 * 8);
            assertTrue(l.total() >= l.recvW() + rows * 8 * 4);
            for (long off : new long[] {l.done(), l.ready(), l.recv(), l.recvIdx(), l.recvW()})
                assertEquals(0, off % 256);
            assertTrue(
                    l.total() <= cfg.sizeHint(ranks) + 4096L * ranks * ranks,
                    "within the size hint (plus counters): " + l.total());
        }
    }

    @Test
    void lowLatencyLayoutHasTwoGenerationsWithinTheSizeHint() {
        MoeConfig cfg = new MoeConfig(MoeConfig.Mode.LOW_LATENCY, 256, 7168, 128, 8, true);
        MoeSymLayout l = MoeSymLayout.of(cfg, 2);
        long region = 128L * 2 * 128 * 2 * 7168;
        assertEquals(region, l.region());
        assertTrue(l.recvIdx() >= l.recv() + 2 * region, "row maps after both generations");
        assertTrue(l.recvW() >= l.recvIdx() + 2L * 2 * 128 * 8 * 8, "weights after the row maps");
        assertTrue(l.comb() >= l.recvW() + 2L * 2 * 128 * 8 * 8, "combine area after the weights");
        assertEquals(l.comb() + 2L * 2 * 128 * 4 * 7168, l.total());
        for (long off : new long[] {l.recvIdx(), l.recvW(), l.comb()}) assertEquals(0, off % 256);
        assertTrue(l.total() <= cfg.sizeHint(2), l.total() + " <= " + cfg.sizeHint(2));
    }

    @Test
    void limitsNameWhatTheKernelsCannotDo() {
        assertNull(MoeKernelLimits.unsupported(MoeConfig.normal(256, 7168, 4096), 2, 227 * 1024));
        assertNull(MoeKernelLimits.unsupported(MoeConfig.lowLatency(256, 7168, 128), 2, 227 * 1024));
        assertTrue(MoeKernelLimits.unsupported(new MoeConfig(MoeConfig.Mode.NORMAL, 8, 100, 4, 2, false), 2, 1 << 20)
                .contains("multiple of 8"));
        assertTrue(MoeKernelLimits.unsupported(new MoeConfig(MoeConfig.Mode.NORMAL, 64, 128, 4, 33, false), 2, 1 << 20)
                .contains("top-k up to 32"));
        assertTrue(
                MoeKernelLimits.unsupported(new MoeConfig(MoeConfig.Mode.NORMAL, 4096, 128, 4, 2, false), 4096, 1 << 20)
                        .contains("up to 2048 PEs"));
        String smem = MoeKernelLimits.unsupported(MoeConfig.lowLatency(4096, 128, 4096), 2, 48 * 1024);
        assertTrue(smem != null && smem.contains("shared memory"), smem);
    }

    @Test
    void blocksAreThisPesShareOfTheSmsUnlessConfigured() {
        assertEquals(64, MoeKernelLimits.blocks(null, 2, 132));
        assertEquals(31, MoeKernelLimits.blocks(" ", 4, 132));
        assertEquals(130, MoeKernelLimits.blocks(null, 1, 132));
        assertEquals(24, MoeKernelLimits.blocks("24", 2, 132));
        IllegalArgumentException tooMany = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> MoeKernelLimits.blocks("200", 2, 132));
        assertTrue(tooMany.getMessage().contains("1..132"), tooMany.getMessage());
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(
                        IllegalArgumentException.class, () -> MoeKernelLimits.blocks("many", 2, 132))
                .getMessage()
                .contains("'many'"));
    }

    @Test
    void lowLatencyBlocksHaveTheirOwnSettingAndTakeTheWholeGpuWhenNotShared() {
        assertEquals(132, MoeKernelLimits.lowLatencyBlocks(null, 1, 132));
        assertEquals(64, MoeKernelLimits.lowLatencyBlocks("", 2, 132));
        assertEquals(96, MoeKernelLimits.lowLatencyBlocks("96", 1, 132));
        IllegalArgumentException bad = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> MoeKernelLimits.lowLatencyBlocks("0", 1, 132));
        assertTrue(bad.getMessage().startsWith("unicomm.nvshmem.moe.ll.sms must be in 1..132"), bad.getMessage());
    }

    @Test
    void kernelErrorRecordsBecomeNamedExceptions() {
        RuntimeException bad =
                MoeErrors.of(NvMoeArgs.ERR_EXPERT, 3, 1, 300, "moe_ll_dispatch_kernel", 256, Duration.ofSeconds(1));
        assertInstanceOf(IllegalArgumentException.class, bad);
        assertTrue(bad.getMessage().startsWith("topkIdx[3, 1] = 300 is not an expert"), bad.getMessage());
        RuntimeException twice = MoeErrors.of(NvMoeArgs.ERR_DUPLICATE, 5, 2, 7, "k", 256, Duration.ofSeconds(1));
        assertTrue(twice.getMessage().contains("topkIdx[5] names expert 7 twice"), twice.getMessage());
        assertInstanceOf(
                CommTimeoutException.class,
                MoeErrors.of(NvMoeArgs.ERR_TIMEOUT, 1, 0, 0, "k", 256, Duration.ofSeconds(1)));
        RuntimeException aborted =
                MoeErrors.of(NvMoeArgs.ERR_ABORTED, 2, 3, 0, "moe_ll_combine_kernel", 256, Duration.ofSeconds(1));
        assertEquals(
                "moe_ll_combine_kernel stopped waiting for rank 2 (step 3): the job was aborted", aborted.getMessage());
    }

    /** The host's abort code is the kernels' (ucn_moe.h): a mismatch would turn an abort into an unknown error code. */
    @Test
    void abortCodeMatchesTheKernels() throws Exception {
        String header = Files.readString(Path.of("src/main/native/ucn_moe.h"));
        assertTrue(
                header.matches("(?s).*#define UCN_MOE_ERR_ABORTED " + NvMoeArgs.ERR_ABORTED + "\\b.*"),
                "UCN_MOE_ERR_ABORTED in ucn_moe.h");
    }
}
