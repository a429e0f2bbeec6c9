package dev.unicomm.conformance;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.Unicomm;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import org.opentest4j.TestAbortedException;

/**
 * Main class of a worker JVM: one rank of a suite's job. Connects to the parent's control channel,
 * opens the suite's communicator, then runs rule bodies on request and reports each outcome.
 */
public final class KitWorker {
    private KitWorker() {}

    public static void main(String[] args) throws Exception {
        String control = System.getenv("UNICOMM_KIT_CONTROL");
        if (control == null) {
            System.err.println("KitWorker is started by the conformance kit (UNICOMM_KIT_CONTROL is not set)");
            System.exit(2);
        }
        int rank = Integer.parseInt(System.getenv("UNICOMM_RANK"));
        long heap = Long.parseLong(System.getenv().getOrDefault("UNICOMM_KIT_HEAP_BYTES", "0"));
        if (control.equals(WorkerGroup.STDIO)) {
            // A worker placed on another host: the control channel is this process's standard input and output,
            // so what the backend or a rule prints goes to standard error (the job's log) instead.
            var out = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out)));
            System.setOut(System.err);
            try {
                talk(new DataInputStream(new BufferedInputStream(System.in)), out, rank, heap);
            } catch (IOException e) {
                System.exit(
                        3); // the kit is gone (input closed): nothing else would end this JVM on a host the kit cannot
                // reach
            }
            System.exit(0);
        }
        int colon = control.lastIndexOf(':');
        try (Socket s = new Socket()) {
            s.connect(
                    new InetSocketAddress(control.substring(0, colon), Integer.parseInt(control.substring(colon + 1))),
                    30_000);
            s.setTcpNoDelay(true);
            talk(
                    new DataInputStream(new BufferedInputStream(s.getInputStream())),
                    new DataOutputStream(new BufferedOutputStream(s.getOutputStream())),
                    rank,
                    heap);
        }
        // The parent asked us to exit: do it now, even if a backend left a non-daemon thread behind.
        System.exit(0);
    }

    /** Says hello, opens the communicator, reports how that went, then serves rules until the parent says exit. */
    private static void talk(DataInputStream in, DataOutputStream out, int rank, long heap) throws IOException {
        out.writeInt(Wire.MAGIC);
        Wire.writeString(out, System.getenv("UNICOMM_KIT_TOKEN"));
        out.writeInt(rank);
        out.writeLong(ProcessHandle.current().pid());
        out.flush();
        Communicator comm = null;
        String startError = "";
        if (Boolean.parseBoolean(System.getenv().getOrDefault("UNICOMM_KIT_CONNECT", "true"))) {
            try {
                comm = Unicomm.connect();
            } catch (Throwable t) {
                startError = "opening the communicator failed: " + describe(t);
            }
        }
        Wire.writeString(out, startError);
        out.flush();
        serve(in, out, comm, heap, topology(comm));
    }

    private static void serve(DataInputStream in, DataOutputStream out, Communicator comm, long heap, String topology)
            throws IOException {
        long usedBefore = -1; // heap in use before the last rule, for the probe after a failure
        while (true) {
            int type = in.readInt();
            if (type == Wire.EXIT) {
                if (comm != null) comm.close();
                out.writeInt(Wire.EXIT);
                out.flush();
                return;
            }
            if (type == Wire.ABORT) {
                abortStore(comm, Wire.readString(in));
                continue;
            }
            if (type == Wire.PROBE) {
                int seq = in.readInt();
                long t0 = System.nanoTime();
                String problem = probe(comm, usedBefore);
                out.writeInt(Wire.RESULT);
                out.writeInt(seq);
                out.writeInt((problem.isEmpty() ? Outcome.PASSED : Outcome.FAILED).ordinal());
                Wire.writeString(out, problem);
                Wire.writeString(out, "");
                Wire.writeString(out, "");
                Wire.writeString(out, topology);
                out.writeLong(System.nanoTime() - t0);
                out.flush();
                continue;
            }
            if (type != Wire.RUN) throw new IOException("unknown control command " + type);
            int seq = in.readInt();
            String rule = Wire.readString(in);
            byte[] body = Wire.readBytes(in);
            int n = in.readInt();
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < n; i++) ports.add(in.readInt());
            Pe pe = new Pe(comm, rule, ports, heap);
            usedBefore = heapUsed(comm);
            java.util.Map<String, Long> countsBefore = algorithmCounts(comm);
            long t0 = System.nanoTime();
            Outcome outcome;
            String message = "";
            try {
                Body b;
                try (var ois = new ObjectInputStream(new ByteArrayInputStream(body))) {
                    b = (Body) ois.readObject();
                }
                try {
                    b.run(pe);
                } finally {
                    pe.closeExtras();
                }
                outcome = Outcome.PASSED;
            } catch (TestAbortedException e) {
                if (rule.startsWith("required_") && !(e instanceof NotApplicable)) {
                    // required means required: a skip that is not about the job or platform is a failure
                    outcome = Outcome.FAILED;
                    message = "a required rule cannot be skipped, but the body skipped it: " + e.getMessage();
                } else {
                    outcome = Outcome.SKIPPED;
                    message = String.valueOf(e.getMessage());
                }
            } catch (Throwable t) {
                outcome = Outcome.FAILED;
                message = describe(t);
                // No abort here: if the other ranks finish the rule too, the job may serve the next rule
                // (the parent probes it); if they wait for this rank, the parent sends ABORT.
            }
            out.writeInt(Wire.RESULT);
            out.writeInt(seq);
            out.writeInt(outcome.ordinal());
            Wire.writeString(out, message);
            Wire.writeString(out, pe.value());
            Wire.writeString(out, algorithmsSince(comm, countsBefore));
            Wire.writeString(out, topology);
            out.writeLong(System.nanoTime() - t0);
            out.flush();
        }
    }

    /** {@link Communicator#algorithmCounts()}, or nothing where the communicator is missing or cannot say. */
    private static java.util.Map<String, Long> algorithmCounts(Communicator comm) {
        try {
            return comm == null ? java.util.Map.of() : comm.algorithmCounts();
        } catch (RuntimeException e) {
            return java.util.Map.of();
        }
    }

    /** The calls of the rule just run by algorithm, {@code "allreduce/two_level=4, allreduce/inline=6"} (sorted; "" for none). */
    static String algorithmsSince(Communicator comm, java.util.Map<String, Long> before) {
        StringBuilder b = new StringBuilder();
        new java.util.TreeMap<>(algorithmCounts(comm)).forEach((k, n) -> {
            long d = n - before.getOrDefault(k, 0L);
            if (d > 0) b.append(b.isEmpty() ? "" : ", ").append(k).append('=').append(d);
        });
        return b.toString();
    }

    /** Which ranks share a host in this job ({@code "2 hosts: node0 (ranks 0-1), node1 (ranks 2-3)"}), "" without a communicator. */
    private static String topology(Communicator comm) {
        try {
            return comm == null ? "" : comm.topology().toString();
        } catch (RuntimeException e) {
            return "";
        }
    }

    /** Lets the other ranks fail fast instead of waiting for this one until the timeout; the job is then restarted. */
    private static void abortStore(Communicator comm, String why) {
        if (comm != null) comm.abort(why); // never throws; the parent restarts the job anyway
    }

    private static long heapUsed(Communicator comm) {
        try {
            return comm == null ? -1 : comm.heap().used();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /**
     * After a failed rule that every rank finished: the job is fit for the next rule when, after a quiet,
     * a barrier still works on every rank and the rule left no symmetric memory allocated. "" when fit,
     * else why not.
     */
    static String probe(Communicator comm, long usedBefore) {
        if (comm == null) return "";
        try {
            comm.rma().quiet(); // nothing the failed rule left in flight may land in the next rule's buffers
            comm.barrier();
            long used = heapUsed(comm);
            comm.barrier(); // every rank passes both barriers, whatever it found
            return usedBefore >= 0 && used != usedBefore
                    ? "the failed rule left " + (used - usedBefore) + " bytes of symmetric heap allocated"
                    : "";
        } catch (Throwable t) {
            return "probe after a failed rule: " + describe(t);
        }
    }

    /** The exception's message, and its first frames for anything that is not a plain assertion. */
    static String describe(Throwable t) {
        if (t instanceof AssertionError && t.getMessage() != null) return t.getMessage();
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        String[] lines = w.toString().split("\n");
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < Math.min(lines.length, 12); i++)
            b.append(i == 0 ? "" : "\n").append(lines[i].stripTrailing());
        return b.toString();
    }
}
