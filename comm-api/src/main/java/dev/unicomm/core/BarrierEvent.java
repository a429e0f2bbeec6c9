package dev.unicomm.core;

import jdk.jfr.Category;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR: a barrier over the world or a team. */
@Name("dev.unicomm.Barrier")
@Label("Barrier")
@Category({"unicomm", "RMA"})
@StackTrace(false)
final class BarrierEvent extends jdk.jfr.Event {
    @Label("Rank") int rank;
    @Label("Team Size") int teamSize;
}
