package dev.unicomm.conformance.planted;

import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.kittest.DefaultRunKitTest;

/**
 * The asynchronous worked example: a backend built from the SPI's forwarding bases around an asynchronous
 * put engine ({@link AsyncCorrectProvider}, backend {@code shm-async}), run through every suite of the
 * default run the way a vendor's kit test does (one plug; the nested suites, the coverage check and the entry
 * check that rules ran come from {@link DefaultRunKitTest}).
 */
class AsyncEngineKitTest extends DefaultRunKitTest {
    static final KitPlug PLUG = KitPlug.backend(AsyncCorrectProvider.NAME);
}
