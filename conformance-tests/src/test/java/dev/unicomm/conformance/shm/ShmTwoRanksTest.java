package dev.unicomm.conformance.shm;

import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.kittest.DefaultRunKitTest;

/**
 * The whole kit's default run against backend-shm with 2 ranks (2 worker JVMs per suite): the JUnit
 * twin of {@code unicomm conformance --backend shm}. {@code KitCoverageTest} checks that its nested classes
 * (from {@link DefaultRunKitTest}) are one per suite of the default run, so the two paths run the same rules.
 * The shm kit lives in the kit's own tests because shm is the reference backend the kit's self-tests run on
 * (a copy in backend-shm would need a test-scope cycle).
 */
class ShmTwoRanksTest extends DefaultRunKitTest {
    static final KitPlug PLUG = ShmKit.PLUG.ranks(2);
}
