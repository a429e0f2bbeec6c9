package dev.unicomm.backend.ascend;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.unicomm.api.CommConfig;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Unicomm;
import dev.unicomm.backend.ascend.internal.AscendSettings;
import dev.unicomm.spi.BackendRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The test double {@code libascend_standin_test_double.so} that the Maven build compiles into
 * target/standin (process-test-classes) and points UNICOMM_ASCEND_*_LIBRARY at. Not Ascend.
 */
final class StandIn {
    private StandIn() {}

    static Path library() {
        String p = System.getProperty("ascend.standin.library");
        assumeTrue(
                p != null && Files.exists(Path.of(p)),
                "the stand-in test double is built by Maven (process-test-classes); run the tests through ./mvnw");
        return Path.of(p);
    }

    /** A single-PE communicator on the stand-in with extra {@code unicomm.*} settings. */
    static Communicator open(Map<String, String> settings) {
        return open(settings, Duration.ofSeconds(20), 16L << 20);
    }

    static Communicator open(Map<String, String> settings, Duration timeout, long heap) {
        String lib = library().toString();
        Map<String, String> props = new HashMap<>(settings);
        props.putIfAbsent(AscendSettings.ACL_LIBRARY, lib);
        props.putIfAbsent(AscendSettings.SHMEM_LIBRARY, lib);
        CommConfig config = new CommConfig("ascend", 0, 1, 0, null, 0, null, false, timeout, heap, props);
        return Unicomm.connect(config, BackendRegistry.of(List.of(new AscendBackendProvider(props::get))));
    }

    /** This JVM's stand-in trace (control-plane calls), as lines. */
    static List<String> trace() throws IOException {
        Path p = Path.of(
                System.getProperty("ascend.standin.dir"),
                "trace-" + ProcessHandle.current().pid() + ".log");
        return Files.exists(p) ? Files.readAllLines(p) : List.of();
    }
}
