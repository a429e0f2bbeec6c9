package dev.unicomm.backend.ucx.kit;

import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.kittest.DefaultRunKitTest;

/** Every suite of the kit's default run against backend-ucx with 2 ranks (2 worker JVMs per suite) over {@code UCX_TLS=tcp}. */
class UcxKitTwoRanksTest extends DefaultRunKitTest {
    static final KitPlug PLUG = UcxKit.PLUG.ranks(2);
}
