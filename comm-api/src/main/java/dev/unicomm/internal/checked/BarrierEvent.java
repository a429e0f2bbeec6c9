package dev.unicomm.internal.checked;

import jdk.jfr.Category;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Throttle;

/** JFR: a barrier over the world or a team; sampled (default at most 200 per second, JFR setting {@code throttle}). */
@Name("dev.unicomm.Barrier")
@Label("Barrier")
@Category({"unicomm", "RMA"})
@StackTrace(false)
@Throttle("200/s")
final class BarrierEvent extends jdk.jfr.Event {
    @Label("Rank")
    int rank;

    @Label("Team Size")
    int teamSize;
}
