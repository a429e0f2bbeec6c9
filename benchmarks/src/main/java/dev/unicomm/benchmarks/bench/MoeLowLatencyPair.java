package dev.unicomm.benchmarks.bench;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.DeviceBuffer;
import dev.unicomm.api.DeviceRuntime;
import dev.unicomm.api.LowLatencyCombined;
import dev.unicomm.api.LowLatencyDispatched;
import dev.unicomm.api.LowLatencyDispatchedOnStream;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.Stream;
import dev.unicomm.api.Tensor;
import dev.unicomm.moe.reference.KitTensors;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.Locale;

/**
 * {@code unicomm bench moe --ll-stream} (device backends): DeepEP's low-latency pairing, an FP8 dispatch and
 * then a BF16 combine of the experts' outputs, timed as one pair per round in two ways, alternating:
 * <ul>
 *   <li>host-sequenced: each call's receive awaited before the next call (a host that reads recvCount);</li>
 *   <li>stream-ordered: both queued on one stream and one {@code synchronize} (what a framework captures in a
 *       CUDA graph; the host waits once instead of twice).</li>
 * </ul>
 * Each way has a buffer of its own (a buffer runs one of them). The experts' outputs are each slot's own
 * BF16 source row, so both combines have the reference's result; the first round of each is verified. Prints
 * {@code MOEPAIR,op,rank,hostSequencedNs,streamOrderedNs,verified(ok/skipped)} (medians of this rank's own wall time).
 */
final class MoeLowLatencyPair {
    private MoeLowLatencyPair() {}

    static final String OP = "low-latency FP8 dispatch + BF16 combine";

    static void run(Communicator comm, MoeBenchWorker.Params p) {
        int me = comm.rank(), t = p.llTokens(), h = p.hidden(); // hidden % 128 == 0: checked by the command
        MoeConfig cfg = new MoeConfig(MoeConfig.Mode.LOW_LATENCY, p.experts(), h, t, p.topk(), true);
        MoeBenchData data = new MoeBenchData(p.seed() + 1, p.experts(), h, p.topk()); // the low-latency rows' data
        try (Arena arena = Arena.ofShared();
                KitTensors mem = new KitTensors(comm)) {
            if (!mem.onDevice())
                throw new IllegalStateException(
                        "--ll-stream: this backend's MoE runs on the host; the stream-ordered path is for device backends");
            DeviceRuntime dev = comm.device();
            Tensor x = mem.place(MoeBenchWorker.lowLatencyTokens(arena, data, me, t, h));
            MoeBenchWorker.Routing r = MoeBenchWorker.Routing.of(arena, mem, data, me, t);
            try (MoeBuffer sequenced = comm.moe(cfg);
                    MoeBuffer ordered = comm.moe(cfg);
                    Stream stream = dev.createStream();
                    AbortOnFailure failFast = new AbortOnFailure(comm, "bench moe --ll-stream")) {
                // The experts' outputs: what a BF16 dispatch delivered to each slot (slots are placed by source rank
                // and token, so an FP8 dispatch of the same ids fills the same ones).
                Tensor delivered =
                        sequenced.lowLatencyDispatch(x, r.idx(), false, false).recvX();
                try (DeviceBuffer yb = dev.allocate(delivered.byteSize())) {
                    dev.copy(yb, 0, delivered.memory(), 0, delivered.byteSize());
                    Tensor y = Tensor.of(yb, DType.BF16, delivered.shape());
                    Pair pair = new Pair(sequenced, ordered, stream, x, y, r.idx(), r.w());
                    if (p.verify()) verify(comm, p, data, r.weights(), mem, pair);
                    for (int i = 0; i < 2000; i++) { // microseconds each: a count suffices
                        pair.sequenced();
                        pair.ordered();
                    }
                    int n = p.llIters();
                    long[] seq = new long[n], ord = new long[n];
                    for (int it = 0; it < n; it++) {
                        boolean sequencedFirst = it % 2 == 0; // neither way always runs right after the other
                        if (sequencedFirst) seq[it] = timed(comm, pair::sequenced);
                        ord[it] = timed(comm, pair::ordered);
                        if (!sequencedFirst) seq[it] = timed(comm, pair::sequenced);
                    }
                    System.out.println(String.format(
                            Locale.ROOT,
                            "MOEPAIR,%s,%d,%d,%d,%s",
                            OP,
                            me,
                            MoeBenchWorker.median(seq),
                            MoeBenchWorker.median(ord),
                            p.verify() ? "ok" : "skipped"));
                }
                failFast.done();
            }
        } catch (UnsupportedOperationException e) {
            throw new IllegalStateException("--ll-stream: " + e.getMessage(), e);
        }
    }

    /** Nanoseconds of this rank's own wall time for one pair, every rank starting after a barrier. */
    private static long timed(Communicator comm, Runnable pair) {
        comm.barrier();
        long t0 = System.nanoTime();
        pair.run();
        return System.nanoTime() - t0;
    }

    /** The two ways of running the pair on the same inputs. */
    private record Pair(MoeBuffer seqBuf, MoeBuffer ordBuf, Stream stream, Tensor x, Tensor y, Tensor idx, Tensor w) {
        Tensor sequenced() {
            LowLatencyDispatched d = seqBuf.lowLatencyDispatch(x, idx, true);
            d.hook().await();
            LowLatencyCombined c = seqBuf.lowLatencyCombine(y, idx, w, d.handle());
            c.hook().await();
            return c.x();
        }

        Tensor ordered() {
            LowLatencyDispatchedOnStream d = ordBuf.lowLatencyDispatch(stream, x, idx, true);
            Tensor out = ordBuf.lowLatencyCombine(stream, y, idx, w, d.handle());
            stream.synchronize();
            return out;
        }
    }

    /** Both ways' FP8 rows, counts and combined outputs against the reference (the stream-ordered dispatch's counts read back). */
    private static void verify(
            Communicator comm, MoeBenchWorker.Params p, MoeBenchData data, float[] weights, KitTensors mem, Pair pair) {
        MoeBenchWorker.verifyLowLatencyCombine(comm, p, data, weights, pair.sequenced(), mem);
        MoeBenchWorker.verifyLowLatencyDispatch(
                comm, p, data, pair.seqBuf().lowLatencyDispatch(pair.x(), pair.idx(), true, false), true, mem);
        MoeBenchWorker.verifyLowLatencyCombine(comm, p, data, weights, pair.ordered(), mem);
        LowLatencyDispatchedOnStream sd = pair.ordBuf().lowLatencyDispatch(pair.stream(), pair.x(), pair.idx(), true);
        pair.stream().synchronize();
        int[] recvCount =
                mem.host(sd.recvCount()).toArray(ValueLayout.JAVA_INT); // checked against the reference's below
        MoeBenchWorker.verifyLowLatencyDispatch(
                comm,
                p,
                data,
                new LowLatencyDispatched(sd.recvX(), sd.recvScales(), recvCount, sd.handle(), () -> {}),
                true,
                mem);
        pair.ordBuf()
                .lowLatencyCombine(
                        pair.stream(), pair.y(), pair.idx(), pair.w(), sd.handle()); // stream-ordered calls alternate
        pair.stream().synchronize();
    }
}
