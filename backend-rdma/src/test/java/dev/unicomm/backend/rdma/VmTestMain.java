package dev.unicomm.backend.rdma;

import java.io.PrintWriter;
import java.util.Arrays;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;

/**
 * Runs test classes (or single methods, {@code Class#method}) with the JUnit launcher and exits non-zero unless every test passed (a skip
 * counts as a failure: inside the VM nothing may skip). Used by src/test/vm/run-vm-tests.sh.
 */
public final class VmTestMain {
    private VmTestMain() {}

    /** {@code a.b.SomeTest} selects the class, {@code a.b.SomeTest#rule} one of its test methods (inherited ones too). */
    static org.junit.platform.engine.DiscoverySelector selector(String arg) {
        return arg.contains("#") ? DiscoverySelectors.selectMethod(arg) : DiscoverySelectors.selectClass(arg);
    }

    public static void main(String[] args) {
        var request = LauncherDiscoveryRequestBuilder.request()
                .selectors(Arrays.stream(args).map(VmTestMain::selector).toList())
                .build();
        var summary = new SummaryGeneratingListener();
        TestExecutionListener progress = new TestExecutionListener() {
            private final java.util.Map<String, Long> started = new java.util.concurrent.ConcurrentHashMap<>();

            @Override
            public void executionStarted(TestIdentifier id) {
                if (!id.isTest()) return;
                started.put(id.getUniqueId(), System.nanoTime());
                // Names the running test in the last output lines if the VM's idle watchdog stops it.
                System.out.println("START " + id.getLegacyReportingName());
            }

            @Override
            public void executionSkipped(TestIdentifier id, String reason) {
                System.out.println("SKIP " + id.getLegacyReportingName() + ": " + reason);
            }

            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                if (!id.isTest()) return;
                long ms = (System.nanoTime() - started.getOrDefault(id.getUniqueId(), System.nanoTime())) / 1_000_000;
                System.out.println(result.getStatus() + " " + id.getDisplayName() + " (" + ms + " ms)"
                        + result.getThrowable().map(t -> " -> " + t).orElse(""));
            }
        };
        LauncherFactory.create().execute(request, summary, progress);
        var s = summary.getSummary();
        PrintWriter out = new PrintWriter(System.out, true);
        s.printFailuresTo(out, 40);
        s.printTo(out);
        boolean ok = s.getTotalFailureCount() == 0
                && s.getTestsSkippedCount() == 0
                && s.getTestsAbortedCount() == 0
                && s.getTestsSucceededCount() > 0;
        System.exit(ok ? 0 : 1);
    }
}
