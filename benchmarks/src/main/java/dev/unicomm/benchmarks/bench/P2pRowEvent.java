package dev.unicomm.benchmarks.bench;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * JFR: one row of {@code unicomm bench p2p} (its duration is the row's timed loop), so a recording
 * shows which operation and block size ran when, next to the JDK's GC, CPU and thread events.
 * Endpoints themselves emit no events; this is the benchmark's own record.
 */
@Name(P2pRowEvent.NAME)
@Label("Bench P2P Row")
@Description("One row of unicomm bench p2p: trips of a batch of RDMA READs or WRITEs of one block each")
@Category({"unicomm", "Benchmark"})
@StackTrace(false)
final class P2pRowEvent extends jdk.jfr.Event {
    static final String NAME = "dev.unicomm.bench.P2pRow";

    @Label("Operation")
    String operation;

    @Label("Block Size")
    @DataAmount
    long blockBytes;

    @Label("Blocks per Trip")
    int batch;

    @Label("Trips")
    long trips;

    @Label("Bytes Transferred")
    @DataAmount
    long bytes;

    @Label("Throughput (MiB/s)")
    double mibPerSecond;
}
