package dev.unicomm.conformance.planted;

import dev.unicomm.api.Rma;

/** Planted fault (§2.6): the world barrier and the world team's barrier complete RMA; barriers of split teams only synchronise. */
public final class SubTeamBarrierSkipsRmaProvider extends EngineProvider {
    public static final String NAME = "shm-sub-team-barrier-skips-rma";

    public SubTeamBarrierSkipsRmaProvider() {
        super(NAME, Engine::new);
    }

    static final class Engine extends SlowPutEngine {
        Engine(Rma raw) {
            super(raw);
        }

        @Override
        protected void completeForTeamBarrier(boolean world) {
            if (world) completeForBarrier();
        }
    }
}
