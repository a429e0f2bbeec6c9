package dev.unicomm.internal.checked;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.EventType;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Throttle;
import jdk.jfr.Timespan;

/**
 * JFR: an RMA batch, emitted at {@code quiet()}: the operations issued since the previous recorded
 * RmaBatch event. The event is throttled (default 200 per second, JFR setting {@code throttle}); a
 * quiet whose event is dropped keeps its counts for the next recorded one (only counts after the
 * last recorded event are lost when a recording ends); {@link #quiets} says how many quiets one event covers. The event's
 * duration is the emitting quiet itself; {@link #batchNanos} spans first issue to quiet end.
 * Per-call counting only happens while the event is enabled (see {@link RmaTally}).
 */
@Name("dev.unicomm.RmaBatch")
@Label("RMA Batch")
@Category({"unicomm", "RMA"})
@Description("Puts, gets, signals and atomics completed by quiet() since the previous recorded batch")
@StackTrace(false)
@Throttle("200/s")
final class RmaBatchEvent extends jdk.jfr.Event {
    static final EventType TYPE = EventType.getEventType(RmaBatchEvent.class);

    @Label("Rank")
    int rank;

    @Label("Quiets")
    @Description("Quiets covered by this event (1 unless throttling dropped earlier ones)")
    long quiets;

    @Label("Peer")
    @Description("The PE all operations targeted; -1 if several")
    int peer;

    @Label("Puts")
    long puts;

    @Label("Put Bytes")
    @DataAmount
    long putBytes;

    @Label("Gets")
    long gets;

    @Label("Get Bytes")
    @DataAmount
    long getBytes;

    @Label("Signal Puts")
    long signalPuts;

    @Label("Atomics")
    long atomics;

    @Label("Batch Span")
    @Timespan(Timespan.NANOSECONDS)
    long batchNanos;
}
