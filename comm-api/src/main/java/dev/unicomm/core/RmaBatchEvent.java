package dev.unicomm.core;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.EventType;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * JFR: one RMA batch, committed at {@code quiet()}: what was issued since the previous quiet. The
 * event's duration is the quiet itself; {@link #batchNanos} spans first issue to quiet end. Per-call
 * work only happens while the event is enabled (see {@link RmaTally}).
 */
@Name("dev.unicomm.RmaBatch")
@Label("RMA Batch")
@Category({"unicomm", "RMA"})
@Description("Puts, gets, signals and atomics completed by one quiet()")
@StackTrace(false)
final class RmaBatchEvent extends jdk.jfr.Event {
    static final EventType TYPE = EventType.getEventType(RmaBatchEvent.class);

    @Label("Rank") int rank;
    @Label("Peer") @Description("The PE all operations targeted; -1 if several") int peer;
    @Label("Puts") long puts;
    @Label("Put Bytes") @DataAmount long putBytes;
    @Label("Gets") long gets;
    @Label("Get Bytes") @DataAmount long getBytes;
    @Label("Signal Puts") long signalPuts;
    @Label("Atomics") long atomics;
    @Label("Batch Span") @Timespan(Timespan.NANOSECONDS) long batchNanos;
}
