package dev.unicomm.backend.fixturea;

import dev.unicomm.backend.fixtureb.LeakyNativeBinding;

/** Deliberately bad fixture: one backend reaching into another. */
public final class UsesOtherBackend {
    public Object borrow() {
        return new LeakyNativeBinding();
    }
}
