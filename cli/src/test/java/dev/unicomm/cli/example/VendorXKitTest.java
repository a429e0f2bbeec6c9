package dev.unicomm.cli.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.cli.Main;
import dev.unicomm.conformance.HeapSuite;
import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.KitSuites;
import dev.unicomm.conformance.RmaSuite;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The out-of-tree example backend runs the kit both ways a vendor would (docs/writing-a-backend.md):
 * as JUnit subclasses of the kit's suites (the nested classes), and through {@code unicomm conformance}.
 * Two suites keep it lean; a vendor's own test has one nested class per suite of
 * {@link KitSuites#defaultRun()} and asserts {@link KitSuites#missingFrom} is empty.
 */
class VendorXKitTest {
    /** The kit plug: which backend; its nested suites need no body. */
    static final KitPlug PLUG = KitPlug.backend(VendorXProvider.NAME);

    @Nested
    class Rma extends RmaSuite {}

    @Nested
    class Heap extends HeapSuite {}

    @Test
    void theCliRunsTheSameSuitesAndPasses() {
        PrintStream old = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true));
        int code;
        try {
            code = Main.run(
                    "conformance", "--backend", VendorXProvider.NAME, "-n", "2", "--quiet", "--suite", "Rma,Heap");
        } finally {
            System.setOut(old);
        }
        String out = buf.toString();
        int rules = KitSuites.rules(RmaSuite.class).size()
                + KitSuites.rules(HeapSuite.class).size();
        assertEquals(0, code, out);
        assertTrue(out.contains(rules + " rules: " + rules + " passed, 0 failed"), out);
        assertTrue(out.contains("certification: PARTIAL_RUN"), "two suites are not a certification: " + out);
        assertTrue(out.contains("backend vendorx"), out);
    }
}
