package dev.unicomm.internal.checked;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR: one MoE dispatch or combine call (for low-latency dispatch: until the call returns, not the receive hook). */
@Name("dev.unicomm.Moe")
@Label("MoE Dispatch/Combine")
@Category({"unicomm", "MoE"})
@StackTrace(false)
final class MoeEvent extends jdk.jfr.Event {
    @Label("Operation")
    String operation;

    @Label("Ranks")
    int ranks;

    @Label("Experts")
    int experts;

    @Label("Hidden")
    int hidden;

    @Label("Input Tokens")
    long tokens;

    @Label("Input Bytes")
    @DataAmount
    long bytes;
}
