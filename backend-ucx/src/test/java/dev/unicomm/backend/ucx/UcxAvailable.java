package dev.unicomm.backend.ucx;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.unicomm.spi.Availability;

/** The one check of backend-ucx's tests that libucp is here. */
public final class UcxAvailable {
    private UcxAvailable() {}

    /** Skips the calling test, with the cause and the fix, where libucp is missing ({@code UNICOMM_UCX_REQUIRE} makes that a failure). */
    public static void assume() {
        Availability a = new UcxBackendProvider().availability();
        if (!a.available() && System.getenv("UNICOMM_UCX_REQUIRE") != null)
            throw new AssertionError("UNICOMM_UCX_REQUIRE is set but ucx is unavailable: " + a.cause());
        assumeTrue(a.available(), () -> "ucx unavailable here: " + a.cause() + " (fix: " + a.fix() + ")");
    }
}
