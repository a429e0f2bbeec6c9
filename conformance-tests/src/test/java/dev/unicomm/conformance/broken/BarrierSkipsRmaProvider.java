package dev.unicomm.conformance.broken;

import dev.unicomm.api.Rma;

/**
 * Broken on purpose: quiet delivers the queued puts (correct), but the world barrier and team
 * barriers only synchronise, leaving the caller's puts queued (barrier rules must fail).
 */
public final class BarrierSkipsRmaProvider extends DecoratedProvider {
    public static final String NAME = "shm-barrier-skips-rma";

    public BarrierSkipsRmaProvider() {
        super(NAME, QuietDelivers::new, false);
    }

    static final class QuietDelivers extends DeferredPuts {
        QuietDelivers(Rma raw) {
            super(raw);
        }

        @Override
        public void quiet() {
            deliverAll();
        }
    }
}
