package dev.unicomm.internal.checked;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * JFR: a communicator was opened (duration = backend selection, rendezvous and backend open).
 * Public only so that {@code Unicomm.connect} can hold one ({@link CheckedCommunicator#opening()}).
 */
@Name("dev.unicomm.CommunicatorOpen")
@Label("Communicator Open")
@Category({"unicomm", "Lifecycle"})
@Description("Unicomm.connect: rendezvous with the job and open of the backend")
@StackTrace(false)
public final class CommOpenEvent extends jdk.jfr.Event {
    CommOpenEvent() {}

    @Label("Backend")
    String backend;

    @Label("Rank")
    int rank;

    @Label("Size")
    int size;

    @Label("Heap Size")
    @DataAmount
    long heapBytes;
}
