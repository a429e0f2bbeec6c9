package dev.unicomm.backend.ucx.kit;

import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.KitSuites;
import dev.unicomm.conformance.kittest.DefaultRunKitTest;
import org.junit.jupiter.api.AfterAll;

/** Every suite of the kit's default run against backend-ucx with 4 ranks on this host over {@code UCX_TLS=tcp}. */
class UcxKitFourRanksTest extends DefaultRunKitTest {
    static final KitPlug PLUG = UcxKit.PLUG.ranks(4);

    /** On one host everything ran flat (the report's "ran:" lines); the base's entry check then asks that rules ran. */
    @AfterAll
    static void ranFlat() {
        UcxKitAlgorithms.assertFlat(KitSuites.algorithms(UcxKitFourRanksTest.class));
    }
}
