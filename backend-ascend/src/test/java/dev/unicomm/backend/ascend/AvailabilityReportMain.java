package dev.unicomm.backend.ascend;

import dev.unicomm.api.BackendReport;
import dev.unicomm.spi.BackendRegistry;
import java.util.List;

/** Prints the ascend provider's report as {@code unicomm info} would; run in a child JVM by the tests. */
public final class AvailabilityReportMain {
    private AvailabilityReportMain() {}

    public static void main(String[] args) {
        System.out.print(BackendReport.table(List.of(BackendRegistry.report(new AscendBackendProvider()))));
    }
}
