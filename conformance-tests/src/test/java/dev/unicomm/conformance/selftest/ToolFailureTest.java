package dev.unicomm.conformance.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.conformance.KitReport;
import dev.unicomm.conformance.KitRunner;
import dev.unicomm.conformance.KitToolException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A run the kit itself could not start is a tool failure, never the backend's NOT_CERTIFIED. */
class ToolFailureTest {
    @Test
    void aJobTheLauncherRejectsIsAToolFailure() {
        KitReport r = KitRunner.run(List.of(ToolFailureFixture.class), Map.of(), null, null);
        KitReport.Entry e = r.entries().getFirst();
        assertEquals(KitReport.Result.FAILED, e.result(), r.table());
        assertTrue(e.reason().contains(KitToolException.PREFIX), e.reason());
        assertEquals(KitReport.Certification.TOOL_FAILURE, r.certification(), r.table());
        assertTrue(r.certificationLine().contains("says nothing about the backend"), r.certificationLine());
    }
}
