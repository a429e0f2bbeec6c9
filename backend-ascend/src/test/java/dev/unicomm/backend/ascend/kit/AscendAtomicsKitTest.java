package dev.unicomm.backend.ascend.kit;

import dev.unicomm.conformance.AtomicsSuite;
import java.util.Map;
import org.junit.jupiter.api.extension.ExtendWith;

/** The kit's {@link AtomicsSuite} on the ascend backend over the stand-in test double (not Ascend hardware), 2 ranks. */
@ExtendWith(StandInKit.class)
class AscendAtomicsKitTest extends AtomicsSuite {
    @Override protected String backend() { return StandInKit.BACKEND; }

    @Override protected int ranks() { return StandInKit.RANKS; }

    @Override protected Map<String, String> workerEnvironment() { return StandInKit.environment(); }
}
