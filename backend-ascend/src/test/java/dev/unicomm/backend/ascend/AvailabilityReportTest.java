package dev.unicomm.backend.ascend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.BackendReport;
import dev.unicomm.api.BackendUnavailableException;
import dev.unicomm.api.CommConfig;
import dev.unicomm.backend.ascend.internal.AscendSettings;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.BackendRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What {@code unicomm info} says about the ascend backend on a machine without Ascend (this one:
 * no CANN, no Ascend SHMEM, no NPU), step by step through the probe.
 */
class AvailabilityReportTest {

    private static BackendReport report(Map<String, String> settings) {
        BackendReport r = BackendRegistry.report(new AscendBackendProvider(settings::get));
        System.out.print(BackendReport.table(List.of(r))); // the report, as CI shows it
        return r;
    }

    @Test
    void withoutCannTheReportNamesTheRuntimeLibraryAndTheSetEnvScript() {
        BackendReport r = report(Map.of()); // defaults: libascendcl.so / libshmem.so, which this machine lacks
        assertFalse(r.available());
        assertTrue(r.cause().contains("ACL runtime not found") && r.cause().contains("libascendcl.so"), r.cause());
        assertTrue(r.fix().contains("source /usr/local/Ascend/ascend-toolkit/set_env.sh"), r.fix());
        assertTrue(r.fix().contains("unicomm.ascend.acl.library"), r.fix());
        assertEquals("ascend", r.name());
    }

    @Test
    void openWithoutCannThrowsBackendUnavailableWithCauseFixAndPage() {
        var provider = new AscendBackendProvider(Map.<String, String>of()::get);
        // No store: open must fail on the availability check before it touches one.
        var e = assertThrows(
                BackendUnavailableException.class,
                () -> provider.open(new BackendContext(CommConfig.single("ascend"), null)));
        assertTrue(e.getMessage().contains("backend 'ascend'"), e.getMessage());
        assertTrue(e.getMessage().contains("ACL runtime not found"), e.getMessage());
        assertTrue(e.getMessage().contains("set_env.sh"), e.getMessage());
        assertTrue(e.getMessage().contains("see docs/troubleshooting.md#ascend-acl-runtime-not-found"), e.getMessage());
    }

    @Test
    void withTheRuntimeButWithoutAscendShmemTheReportNamesTheShmemLibrary() {
        String lib = StandIn.library().toString();
        BackendReport r =
                report(Map.of(AscendSettings.ACL_LIBRARY, lib, AscendSettings.SHMEM_LIBRARY, "/opt/none/libshmem.so"));
        assertFalse(r.available());
        assertTrue(
                r.cause().contains("Ascend SHMEM library not found")
                        && r.cause().contains("/opt/none/libshmem.so"),
                r.cause());
        assertTrue(r.fix().contains("UNICOMM_ASCEND_SHMEM_LIBRARY"), r.fix());
    }

    @Test
    void aLibraryWithoutTheAclshmemApiIsReportedWithTheMissingFunctions() {
        String lib = StandIn.library().toString();
        BackendReport r = report(Map.of(AscendSettings.ACL_LIBRARY, lib, AscendSettings.SHMEM_LIBRARY, "libc.so.6"));
        assertFalse(r.available());
        assertTrue(r.cause().contains("libc.so.6 lacks") && r.cause().contains("aclshmemx_init_attr"), r.cause());
    }

    @Test
    void aDeviceBeyondTheVisibleOnesIsReported() {
        String lib = StandIn.library().toString();
        BackendReport r = report(
                Map.of(AscendSettings.ACL_LIBRARY, lib, AscendSettings.SHMEM_LIBRARY, lib, AscendSettings.DEVICE, "7"));
        assertFalse(r.available());
        assertTrue(r.cause().contains("only 1 NPU"), r.cause());
    }

    @Test
    void theStandInCountsAsAvailable() {
        String lib = StandIn.library().toString();
        BackendReport r = report(Map.of(AscendSettings.ACL_LIBRARY, lib, AscendSettings.SHMEM_LIBRARY, lib));
        assertTrue(r.available(), r.cause());
        assertFalse(r.capabilities().contains(dev.unicomm.api.Capability.ATOMICS));
        assertFalse(r.capabilities().contains(dev.unicomm.api.Capability.NATIVE_COLLECTIVES));
    }

    @Test
    void aHostSideHeapIsNotDeclaredAsDeviceMemory() {
        String lib = StandIn.library().toString();
        assertTrue(report(Map.of(AscendSettings.ACL_LIBRARY, lib, AscendSettings.SHMEM_LIBRARY, lib))
                .capabilities()
                .contains(dev.unicomm.api.Capability.DEVICE_MEMORY_ASCEND));
        assertFalse(report(Map.of(
                        AscendSettings.ACL_LIBRARY,
                        lib,
                        AscendSettings.SHMEM_LIBRARY,
                        lib,
                        AscendSettings.HEAP_SIDE,
                        "host"))
                .capabilities()
                .contains(dev.unicomm.api.Capability.DEVICE_MEMORY_ASCEND));
    }

    @Test
    void aBadSettingMakesTheBackendUnavailableInsteadOfThrowing() {
        BackendReport r = report(Map.of(AscendSettings.HEAP_SIDE, "sideways"));
        assertFalse(r.available());
        assertTrue(r.cause().contains("'device' or 'host'"), r.cause());
    }

    /** A driver that sees no NPU: the stand-in reports 0 devices in a child JVM (the count comes from its environment). */
    @Test
    void noVisibleNpuIsReportedWithTheDriverFix() throws IOException, InterruptedException {
        StandIn.library();
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        ProcessBuilder pb = new ProcessBuilder(
                java.toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-Dorg.bytedeco.javacpp.cachedir="
                        + System.getProperty("org.bytedeco.javacpp.cachedir", "target/javacpp-cache"),
                "-cp",
                System.getProperty("java.class.path"),
                AvailabilityReportMain.class.getName());
        pb.environment().put("ASCEND_STANDIN_DEVICE_COUNT", "0");
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child JVM did not finish");
        System.out.print(out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("UNAVAILABLE") && out.contains("no Ascend NPU is visible"), out);
        assertTrue(out.contains("npu-smi info"), out);
    }
}
