package dev.unicomm.conformance.selftest;

import dev.unicomm.conformance.HeapSuite;

/** A suite pointed at a backend that is not on the class path; run by {@link HarnessTest}. */
public class UnknownBackendFixture extends HeapSuite {
    @Override
    protected String backend() {
        return "no-such-backend";
    }
}
