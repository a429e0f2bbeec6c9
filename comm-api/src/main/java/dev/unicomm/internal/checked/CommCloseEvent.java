package dev.unicomm.internal.checked;

import jdk.jfr.Category;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR: a communicator was closed (duration = releasing collectives scratch, leaked buffers, the backend, the store). */
@Name("dev.unicomm.CommunicatorClose")
@Label("Communicator Close")
@Category({"unicomm", "Lifecycle"})
@StackTrace(false)
final class CommCloseEvent extends jdk.jfr.Event {
    @Label("Backend")
    String backend;

    @Label("Rank")
    int rank;

    @Label("Size")
    int size;

    @Label("Buffers Left Open")
    int leakedBuffers;
}
