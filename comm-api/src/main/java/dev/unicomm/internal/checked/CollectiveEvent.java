package dev.unicomm.internal.checked;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR: one collective call on a team. */
@Name("dev.unicomm.Collective")
@Label("Collective")
@Category({"unicomm", "Collectives"})
@StackTrace(false)
final class CollectiveEvent extends jdk.jfr.Event {
    @Label("Operation")
    String operation;

    @Label("Team Rank")
    int teamRank;

    @Label("Team Size")
    int teamSize;

    @Label("Bytes")
    @Description("Bytes this PE contributes (per-PE block for allgather/alltoall)")
    @DataAmount
    long bytes;

    @Label("Data Type")
    String dtype;

    @Label("Reduce Op")
    String reduceOp;

    @Label("Native")
    @Description("The backend's own implementation (false: portable algorithm)")
    boolean nativeImpl;
}
