package dev.unicomm.backend.fixturea;

import dev.unicomm.api.Communicator;
import dev.unicomm.internal.checked.CheckedCommunicator;

/** Bad fixture: a backend that unwraps the validating layer instead of using the API. */
public final class ReachesIntoTheValidatingLayer {
    private ReachesIntoTheValidatingLayer() {}

    public static Object store(Communicator c) {
        return c instanceof CheckedCommunicator cc ? cc.store() : null;
    }
}
