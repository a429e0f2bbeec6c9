package dev.unicomm.backend.ucx.kit;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.unicomm.backend.ucx.UcxAvailable;
import dev.unicomm.conformance.KitReport;
import dev.unicomm.conformance.KitRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Writes the kit reports of backend-ucx (JSON and text, as under {@code results/kit-reports/}):
 * {@code -Dunicomm.ucx.kit.reports=DIR} runs {@link UcxKitTwoHostsTest} (2 hosts x 2 ranks) and
 * {@link UcxKitFourRanksTest} (4 ranks on one host) through the kit's runner and writes
 * {@code kit-ucx-2hosts-x2.{json,txt}} and {@code kit-ucx-4ranks.{json,txt}} there. Off by default: CI runs the
 * same classes directly.
 */
class UcxKitReports {
    @Test
    void writeReports() throws IOException {
        String dir = System.getProperty("unicomm.ucx.kit.reports");
        assumeTrue(dir != null && !dir.isBlank(), "writes the kit reports only with -Dunicomm.ucx.kit.reports=DIR");
        UcxAvailable.assume();
        Path out = Path.of(dir);
        Files.createDirectories(out);
        boolean ok = write(out, "kit-ucx-2hosts-x2", UcxKitTwoHostsTest.class);
        ok &= write(out, "kit-ucx-4ranks", UcxKitFourRanksTest.class);
        assertTrue(ok, "a kit run failed; see the reports in " + out.toAbsolutePath());
    }

    private static boolean write(Path dir, String name, Class<?> kitTest) throws IOException {
        KitReport r = KitRunner.runSelected(List.of(selectClass(kitTest)), Map.of(), null, System.out);
        Files.writeString(dir.resolve(name + ".json"), r.json());
        Files.writeString(dir.resolve(name + ".txt"), r.table());
        System.out.println(r.certificationLine());
        return r.passed();
    }
}
