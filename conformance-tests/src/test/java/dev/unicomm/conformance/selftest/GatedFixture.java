package dev.unicomm.conformance.selftest;

import dev.unicomm.conformance.HeapSuite;
import dev.unicomm.conformance.KitPlug;

/** A backend whose device is missing: the plug's gate skips every rule with the provider's cause and fix ({@link KitPlugTest}). */
public class GatedFixture extends HeapSuite {
    static final KitPlug PLUG =
            KitPlug.backend(UnpluggedProvider.NAME).skipWhereUnavailable(null, "it runs in the lab");
}
