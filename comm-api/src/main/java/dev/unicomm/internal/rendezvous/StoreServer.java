package dev.unicomm.internal.rendezvous;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;

/**
 * The rendezvous host: a small key-value server that rank 0 runs for the job. It admits exactly
 * the job's ranks (each rank id once, with the job's token when one is set and the job's id when
 * both sides know one), serves set/get-with-wait/add/contains, and turns a rank's failure into a
 * job-wide abort: if a rank calls abort, or its connection ends without a clean goodbye, every
 * pending and later request of every rank is answered "aborted, rank r: reason". A connection it
 * turns away is a stranger (likely a second job on the same port): only it is told, and the job goes
 * on. Malformed or oversized input from a connection is logged and that connection is dropped; the
 * server keeps serving the others.
 */
public final class StoreServer implements Closeable {
    private static final System.Logger LOG = System.getLogger("dev.unicomm.store");
    /**
     * Connections that have not said hello yet. Beyond this the oldest is dropped, never the newest:
     * a rank says hello within milliseconds of connecting, so peers that hold connections open
     * cannot keep it out (each also lives at most the hello limit, counted from the accept).
     */
    static final int MAX_AWAITING_HELLO = 1024;
    /** Warnings about rejected or dropped peers: at most this many per {@link #LOG_WINDOW_SECONDS}. */
    private static final int LOG_BURST = 5;

    private static final int LOG_WINDOW_SECONDS = 10;

    private final ServerSocket listener;
    private final int worldSize;
    private final byte[] token;
    private final byte[] jobId; // null: not known, any job's ranks may join (the token still decides)
    private final int helloTimeoutMillis;
    private final ScheduledThreadPoolExecutor timers;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    /** Accepted, not yet past their hello, oldest first; a connection leaves it exactly once (see {@link Connection#claim}). */
    private final ConcurrentLinkedDeque<Connection> awaitingHello = new ConcurrentLinkedDeque<>();

    private final AtomicInteger awaitingCount = new AtomicInteger();
    private final RateLimitedLog peerLog = new RateLimitedLog(LOG, LOG_BURST, LOG_WINDOW_SECONDS, TimeUnit.SECONDS);
    private final Thread acceptor;
    private final int maxAwaitingHello;

    // Guarded by this.
    private final Map<String, byte[]> values = new HashMap<>();
    private final Map<String, List<Waiter>> waiters = new HashMap<>();
    private final Connection[] ranks;
    private final boolean[] left;
    private int abortedRank = -2;
    private String abortReason;
    /** Abort notices being written right now (outside the lock); {@link #close} must not cut them off. */
    private int abortSends;

    private long abortedAtNanos;
    private final long startedNanos = System.nanoTime();
    /**
     * How long after an abort rank 0 keeps the host up for ranks that have not joined yet: a survivor that
     * started a little later than the others still learns who failed, while a rank that will never come
     * (it is not part of this open) delays rank 0's close by no more than this.
     */
    static final Duration LATE_JOIN_GRACE = Duration.ofSeconds(5);

    private volatile boolean closing;
    /** Elastic mode: a rank whose connection drops is recorded as failed instead of aborting the job. */
    private final boolean elastic;
    // Guarded by this (elastic mode): how many rank deaths so far, and which job ranks died.
    private int failEpoch;
    private final java.util.BitSet failed = new java.util.BitSet();
    private String lastFailure;
    /** How long a joined rank may send nothing before it counts as failed; 0 until {@link #watchLiveness}. */
    private volatile long silenceLimitNanos;

    private StoreServer(
            ServerSocket listener, int worldSize, String token, String jobId, Duration helloTimeout, boolean elastic) {
        this.jobId = jobId == null ? null : jobId.getBytes(StandardCharsets.UTF_8);
        this.listener = listener;
        this.elastic = elastic;
        this.worldSize = worldSize;
        this.token = token == null ? null : token.getBytes(StandardCharsets.UTF_8);
        this.helloTimeoutMillis = (int)
                Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(TcpStore.nanos(helloTimeout))));
        this.ranks = new Connection[worldSize];
        // A large job's ranks may all be mid-handshake at once: never make them push each other out.
        this.maxAwaitingHello = Math.max(MAX_AWAITING_HELLO, 2 * worldSize);
        this.left = new boolean[worldSize];
        this.timers = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "unicomm-store-timers");
            t.setDaemon(true);
            return t;
        });
        timers.setRemoveOnCancelPolicy(true);
        this.acceptor =
                Thread.ofPlatform().daemon().name("unicomm-store-accept").unstarted(this::acceptLoop);
    }

    /**
     * Starts serving on {@code bind:port} ({@code port} 0 picks a free port, see {@link #port()}).
     *
     * @param worldSize    how many ranks the job has; only ranks {@code 0..worldSize-1} are admitted, each once
     * @param token        the secret every rank must present, or {@code null} to admit ranks without one
     * @param ssl          TLS for every connection (clients must present a certificate the context trusts), or {@code null}
     * @param helloTimeout how long a new connection may take, from its accept, to authenticate before it is dropped
     * @throws java.io.UncheckedIOException if the address cannot be bound (for example, the port is in use)
     */
    public static StoreServer start(
            InetAddress bind, int port, int worldSize, String token, SSLContext ssl, Duration helloTimeout) {
        return start(bind, port, worldSize, token, ssl, helloTimeout, false);
    }

    /**
     * As {@link #start(InetAddress, int, int, String, SSLContext, Duration)}; with {@code elastic} a rank whose
     * connection ends without a goodbye does not abort the job: it is recorded as failed (key
     * {@value #FAILED_KEY}: {@code epoch:r1,r2,...}), every rank is told, pending waits are answered
     * "rank failed", and later requests on keys of an older generation ({@code e<N>/...} with N below the
     * failure epoch) too. An explicit abort still fails the whole job.
     */
    public static StoreServer start(
            InetAddress bind,
            int port,
            int worldSize,
            String token,
            SSLContext ssl,
            Duration helloTimeout,
            boolean elastic) {
        return start(bind, port, worldSize, token, null, ssl, helloTimeout, elastic);
    }

    /**
     * As {@link #start(InetAddress, int, int, String, SSLContext, Duration, boolean)}, for the job
     * {@code jobId} (its launcher's name for it, see {@code Rendezvous}; {@code null}: unknown): a rank
     * that presents another job's id is a stranger from a second job on this port, turned away even
     * when both jobs share a token (or have none).
     */
    public static StoreServer start(
            InetAddress bind,
            int port,
            int worldSize,
            String token,
            String jobId,
            SSLContext ssl,
            Duration helloTimeout,
            boolean elastic) {
        if (jobId != null && jobId.getBytes(StandardCharsets.UTF_8).length > StoreWire.MAX_JOB_ID_BYTES)
            throw new IllegalArgumentException(
                    "a job id may have at most " + StoreWire.MAX_JOB_ID_BYTES + " UTF-8 bytes");
        if (worldSize < 1) throw new IllegalArgumentException("world size must be >= 1, got " + worldSize);
        if (port < 0 || port > 65535) throw new IllegalArgumentException("port must be in [0, 65535], got " + port);
        ServerSocket listener = null;
        try {
            if (ssl != null) {
                SSLServerSocket s =
                        (SSLServerSocket) ssl.getServerSocketFactory().createServerSocket();
                s.setNeedClientAuth(true);
                listener = s;
            } else {
                listener = new ServerSocket();
            }
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress(bind, port), 128);
        } catch (IOException e) {
            closeQuietly(listener);
            throw new java.io.UncheckedIOException(bindFailure(bind, port, e), e);
        }
        StoreServer server = new StoreServer(listener, worldSize, token, jobId, helloTimeout, elastic);
        server.acceptor.start();
        return server;
    }

    /** A job id for a message: printable ASCII only (it came from another process), at most 64 characters. */
    static String printable(byte[] id) {
        StringBuilder sb = new StringBuilder();
        for (byte b : id) {
            if (sb.length() >= 64) return sb.append("...").toString();
            sb.append(b >= 0x20 && b < 0x7f ? (char) b : '?');
        }
        return sb.toString();
    }

    /** One line for a failed bind; "in use" is by far the likeliest cause: another job on the same port. */
    static String bindFailure(InetAddress bind, int port, IOException e) {
        String os = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        if (e instanceof java.net.BindException && os.contains("in use"))
            return "rank 0 cannot serve the rendezvous store: port " + port + " on " + bind.getHostAddress()
                    + " is in use - another job? "
                    + "give each job its own port (MASTER_PORT, or UNICOMM_STORE=host:port)";
        return "rank 0 cannot serve the rendezvous store on " + bind.getHostAddress() + ":" + port + " (" + os
                + "); is the address one of this host's? set MASTER_ADDR/UNICOMM_STORE to rank 0's address";
    }

    private static void closeQuietly(ServerSocket s) {
        if (s == null) return;
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing left to do
        }
    }

    /** The port the server listens on. */
    public int port() {
        return listener.getLocalPort();
    }

    /**
     * Counts a joined rank that sends nothing for {@code limit} as failed (its ranks ping every
     * {@link Liveness#PING_INTERVAL}): a host whose link went down, a stopped process or a lost machine is
     * reported like a crashed rank, naming the silent ranks, instead of every wait running into its timeout.
     */
    public StoreServer watchLiveness(Duration limit) {
        if (limit.compareTo(Liveness.PING_INTERVAL.multipliedBy(3)) < 0)
            throw new IllegalArgumentException("a liveness limit must be at least three ping intervals ("
                    + Liveness.PING_INTERVAL.multipliedBy(3).toMillis() + " ms), got " + limit.toMillis() + " ms");
        silenceLimitNanos = limit.toNanos();
        long period = Liveness.PING_INTERVAL.toMillis();
        try {
            timers.scheduleWithFixedDelay(this::failSilentRanks, period, period, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closed already
        }
        return this;
    }

    /**
     * Ranks silent past the limit fail. In a job that then fails, ranks silent for half of it at that moment are
     * named with them (with pings every second a live rank is rarely silent that long, and a lost host's ranks go
     * quiet together); an elastic job counts only the overdue ones as dead.
     */
    private void failSilentRanks() {
        long limit = silenceLimitNanos, now = System.nanoTime();
        List<Integer> overdue = new ArrayList<>(), quiet = new ArrayList<>();
        List<Connection> cut = new ArrayList<>();
        synchronized (this) {
            if (abortReason != null || closing) return;
            for (int r = 0; r < ranks.length; r++) {
                Connection c = ranks[r];
                if (c == null || left[r] || failed.get(r) || c.saidBye) continue;
                long silent = now - c.lastHeardNanos;
                if (silent > limit) {
                    overdue.add(r);
                    cut.add(c);
                } else if (silent > limit / 2) {
                    quiet.add(r);
                }
            }
        }
        if (overdue.isEmpty()) return;
        // A failing job names the ranks that went quiet with the overdue ones (a lost host's ranks go quiet
        // together); an elastic job goes on, so only a rank past the limit is counted as dead.
        List<Integer> named = new ArrayList<>(overdue);
        if (!elastic) {
            named.addAll(quiet);
            named.sort(null);
        }
        String who = named.size() == 1 ? "rank " + named.get(0) : "ranks " + Liveness.list(named);
        String reason = who + " sent nothing to the rendezvous store for " + TimeUnit.NANOSECONDS.toSeconds(limit)
                + " s: " + (named.size() == 1 ? "its" : "their")
                + " host or network link is down, or the process is stopped";
        if (elastic) for (int r : overdue) rankDied(r, reason);
        else rankFailed(named.get(0), reason);
        for (Connection c : cut) c.close(); // its reader then ends; the failure is recorded already
    }

    /**
     * Waits until every rank has said goodbye, the job was aborted, or {@code limit} passed.
     *
     * @return whether every rank left cleanly
     */
    public synchronized boolean awaitAllLeft(Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + TcpStore.nanos(limit);
        while (abortReason == null && !allLeft()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) return false;
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return abortReason == null;
    }

    /**
     * After an abort, before the host stops: waits until the abort notices being written have gone out,
     * and until every rank has joined (a rank joining now is told in the answer to its hello), the join
     * window counted from the host's start has passed, or {@link #LATE_JOIN_GRACE} has passed since the
     * abort. Without this a survivor that is slower than rank 0 sees the host vanish instead of an abort
     * naming the failed rank. Returns at once if the job was not aborted.
     */
    public synchronized void awaitAbortHeard(Duration joinWindow) throws InterruptedException {
        long window = TcpStore.nanos(joinWindow);
        long sendDeadline = System.nanoTime() + window;
        long joinDeadline = Math.min(startedNanos + window, abortedAtNanos + TcpStore.nanos(LATE_JOIN_GRACE));
        while (abortReason != null) {
            long now = System.nanoTime();
            long wait;
            if (abortSends > 0 && now < sendDeadline) wait = sendDeadline - now;
            else if (!allJoined() && now < joinDeadline) wait = joinDeadline - now;
            else return;
            TimeUnit.NANOSECONDS.timedWait(this, wait);
        }
    }

    private boolean allJoined() {
        for (Connection c : ranks) if (c == null) return false;
        return true;
    }

    private synchronized void abortSent() {
        abortSends--;
        notifyAll();
    }

    private boolean allLeft() {
        for (int r = 0; r < left.length; r++) if (!left[r] && !failed.get(r)) return false;
        return true;
    }

    /** Stops serving at once: every connection is closed (ranks still connected see the host vanish). */
    @Override
    public void close() {
        closing = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (Connection c : connections) c.close();
        timers.shutdownNow();
    }

    private void acceptLoop() {
        while (!closing) {
            Socket s;
            try {
                s = listener.accept();
            } catch (IOException e) {
                if (closing || listener.isClosed()) return;
                // Typically out of file descriptors under a flood: shed the oldest unauthenticated peer and go on.
                peerLog.warn("rendezvous store: accepting a connection failed (" + e.getMessage()
                        + "); dropping the oldest connection that has not authenticated");
                dropOldestAwaitingHello("the store ran out of room for new connections");
                try {
                    Thread.sleep(10);
                } catch (InterruptedException ie) {
                    return;
                }
                continue;
            }
            Connection c = new Connection(s);
            connections.add(c);
            awaitingHello.addLast(c);
            if (awaitingCount.incrementAndGet() > maxAwaitingHello)
                dropOldestAwaitingHello("more than " + maxAwaitingHello + " connections were waiting to authenticate");
            try {
                c.helloDeadline = timers.schedule(
                        () -> c.expire("no hello within " + helloTimeoutMillis + " ms of connecting"),
                        helloTimeoutMillis,
                        TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                c.close(); // shutting down
            }
            if (closing) c.close();
            Thread.ofVirtual().name("unicomm-store-conn").start(c::serve);
        }
    }

    private void dropOldestAwaitingHello(String why) {
        Connection oldest = awaitingHello.peekFirst();
        if (oldest != null) oldest.expire(why);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing left to do
        }
    }

    /** One client connection: a hello, then requests until goodbye or end of stream. */
    private final class Connection {
        private final Socket socket;
        private OutputStream out; // guarded by this
        private int rank = -1;
        private volatile boolean saidBye;
        /** When this rank last sent anything (set on admission and on every frame): the liveness watch reads it. */
        private volatile long lastHeardNanos = System.nanoTime();
        /** Set by admit when the job was already aborted: the answer to this rank's hello. */
        private int joinAbortRank;

        private String joinAbortReason;
        private volatile ScheduledFuture<?> helloDeadline;
        private volatile String droppedBecause;

        Connection(Socket socket) {
            this.socket = socket;
        }

        /**
         * Takes this connection off the awaiting-hello list; true for exactly one caller. The hello
         * path claims it before it admits a rank, so an expiry never closes an admitted rank.
         */
        boolean claim() {
            if (!awaitingHello.remove(this)) return false;
            awaitingCount.decrementAndGet();
            ScheduledFuture<?> d = helloDeadline;
            if (d != null) d.cancel(false);
            return true;
        }

        /** Drops the connection if it has not got past its hello yet (deadline, room for newer ones). */
        void expire(String why) {
            if (!claim()) return;
            droppedBecause = why;
            close();
        }

        void serve() {
            boolean authenticated = false;
            try {
                // The hello deadline is absolute (a timer from the accept, see acceptLoop); this only bounds a single
                // read.
                socket.setSoTimeout(helloTimeoutMillis);
                socket.setTcpNoDelay(true);
                // Nothing is buffered for a peer before it authenticates: the hello is read straight off the socket.
                DataInputStream hello = new DataInputStream(socket.getInputStream());
                synchronized (this) {
                    out = socket.getOutputStream();
                }
                authenticated = hello(hello);
                if (!authenticated) return;
                socket.setSoTimeout(0);
                socket.setKeepAlive(true);
                synchronized (this) {
                    out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
                }
                requests(new DataInputStream(new BufferedInputStream(socket.getInputStream(), 1 << 16)));
            } catch (IOException e) {
                if (!authenticated) {
                    claim();
                    String why = droppedBecause != null
                            ? droppedBecause
                            : e.getMessage() != null
                                    ? e.getMessage()
                                    : e.getClass().getSimpleName();
                    if (!closing)
                        peerLog.warn("dropped a connection from " + socket.getRemoteSocketAddress()
                                + " before it authenticated: " + why);
                }
            } finally {
                if (!authenticated) claim();
                close();
                connections.remove(this);
            }
        }

        /** Reads and checks the hello; replies OK or ERROR. */
        private boolean hello(DataInputStream in) throws IOException {
            StoreWire.Reader msg;
            int version, claimedRank, claimedSize;
            byte[] presented, presentedJob;
            try {
                byte[] frame = StoreWire.readFrame(in, StoreWire.MAX_HELLO_FRAME);
                if (!claim()) throw new java.net.SocketException(droppedBecause == null ? "dropped" : droppedBecause);
                msg = new StoreWire.Reader(frame);
                if (msg.type != StoreWire.HELLO)
                    throw new ProtocolException("expected a hello, got message type " + msg.type);
                if (msg.i32() != StoreWire.MAGIC) throw new ProtocolException("not a unicomm store client (bad magic)");
                version = msg.i16();
                claimedRank = msg.i32();
                claimedSize = msg.i32();
                presented = msg.optionalBytes(StoreWire.MAX_KEY_BYTES, "token");
                presentedJob = msg.hasMore() ? msg.optionalBytes(StoreWire.MAX_JOB_ID_BYTES, "job id") : null;
                msg.end();
            } catch (ProtocolException e) {
                reject(0, "malformed hello: " + e.getMessage());
                return false;
            }
            if (version != StoreWire.VERSION) {
                reject(
                        msg.requestId,
                        "protocol version " + version + " is not supported (this host speaks " + StoreWire.VERSION
                                + ")");
                return false;
            }
            if (claimedSize != worldSize) {
                String why =
                        "rank " + claimedRank + " claims a job of " + claimedSize + " ranks; this job has " + worldSize;
                reject(msg.requestId, why);
                return false;
            }
            if (claimedRank < 0 || claimedRank >= worldSize) {
                reject(msg.requestId, "rank " + claimedRank + " is outside [0, " + worldSize + ")");
                return false;
            }
            if (jobId != null && presentedJob != null && !java.util.Arrays.equals(jobId, presentedJob)) {
                reject(
                        msg.requestId,
                        "rank " + claimedRank + " belongs to job '" + printable(presentedJob)
                                + "'; this store serves job '" + printable(jobId) + "'");
                return false;
            }
            if (token != null && (presented == null || !MessageDigest.isEqual(token, presented))) {
                // Never log what was presented: it may be a near-miss of the secret.
                String why = "rank " + claimedRank + " presented " + (presented == null ? "no token" : "a wrong token")
                        + " (every rank must use the job's UNICOMM_TOKEN)";
                reject(msg.requestId, why);
                return false;
            }
            String problem = admit(claimedRank);
            if (problem != null) {
                reject(msg.requestId, problem);
                return false;
            }
            rank = claimedRank;
            // An abort that happened before this rank joined must reach it too: then it is the answer to the hello,
            // one frame, so that rank 0 stopping the host right after cannot leave this rank with a bare OK.
            if (joinAbortReason == null) {
                send(new StoreWire.Writer(StoreWire.OK, msg.requestId).build());
                return true;
            }
            try {
                send(aborted(msg.requestId, joinAbortRank, joinAbortReason));
            } finally {
                abortSent();
            }
            return true;
        }

        private String admit(int r) {
            synchronized (StoreServer.this) {
                if (closing) return "the rendezvous store is shutting down";
                if (ranks[r] != null) return "rank " + r + " has already joined this job (each rank joins once)";
                ranks[r] = this;
                lastHeardNanos = System.nanoTime();
                // Joined and, after an abort, its answer counted as a notice in flight, in one step:
                // awaitAbortHeard must never see this rank joined while that answer is unwritten.
                if (abortReason != null) {
                    abortSends++;
                    joinAbortRank = abortedRank;
                    joinAbortReason = abortReason;
                }
                StoreServer.this.notifyAll(); // awaitAbortHeard counts joins
                return null;
            }
        }

        /**
         * Turns a connection away before it joined. It is a stranger to the job, whatever rank it claims:
         * a second job on the same port (same user, other token or size) looks exactly like it, and must
         * never be able to abort this one. Only the stranger is told; the job goes on.
         */
        private void reject(int requestId, String why) {
            peerLog.warn("rendezvous store: rejected a connection from " + socket.getRemoteSocketAddress()
                    + " (a stranger, not counted as a rank of this job; the job goes on): " + why);
            send(new StoreWire.Writer(StoreWire.ERROR, requestId).text(why).build());
        }

        private void requests(DataInputStream in) throws IOException {
            while (true) {
                byte[] body;
                try {
                    body = StoreWire.readFrame(in, StoreWire.MAX_FRAME);
                } catch (ProtocolException e) {
                    // The stream cannot be resynchronised after a bad frame header: this rank is broken.
                    rankFailed(rank, "sent a malformed message (" + e.getMessage() + ")");
                    return;
                } catch (IOException e) {
                    if (!saidBye && !closing) {
                        String why = "its connection to the rendezvous store ended without a clean close ("
                                + (e instanceof EOFException ? "process exited or was killed" : e.getMessage()) + ")";
                        if (elastic) rankDied(rank, why);
                        else rankFailed(rank, why);
                    }
                    return;
                }
                lastHeardNanos = System.nanoTime();
                int requestId = 0;
                try {
                    StoreWire.Reader msg = new StoreWire.Reader(body);
                    requestId = msg.requestId;
                    if (!handle(msg)) return;
                } catch (ProtocolException e) {
                    LOG.log(
                            System.Logger.Level.WARNING,
                            "rank " + rank + " sent a malformed request: " + e.getMessage());
                    send(new StoreWire.Writer(StoreWire.ERROR, requestId)
                            .text("malformed request: " + e.getMessage())
                            .build());
                }
            }
        }

        /** Serves one request; false after goodbye. */
        private boolean handle(StoreWire.Reader msg) throws ProtocolException {
            switch (msg.type) {
                case StoreWire.SET -> {
                    String key = msg.text(StoreWire.MAX_KEY_BYTES, "key");
                    byte[] value = msg.bytes(StoreWire.MAX_VALUE_BYTES, "value");
                    msg.end();
                    set(this, msg.requestId, key, value);
                }
                case StoreWire.GET -> {
                    String key = msg.text(StoreWire.MAX_KEY_BYTES, "key");
                    long waitMillis = msg.i64();
                    msg.end();
                    get(this, msg.requestId, key, waitMillis);
                }
                case StoreWire.ADD -> {
                    String key = msg.text(StoreWire.MAX_KEY_BYTES, "key");
                    long delta = msg.i64();
                    msg.end();
                    add(this, msg.requestId, key, delta);
                }
                case StoreWire.CONTAINS -> {
                    String key = msg.text(StoreWire.MAX_KEY_BYTES, "key");
                    msg.end();
                    boolean has;
                    synchronized (StoreServer.this) {
                        has = values.containsKey(key);
                    }
                    send(new StoreWire.Writer(StoreWire.BOOL, msg.requestId)
                            .u8(has ? 1 : 0)
                            .build());
                }
                case StoreWire.ABORT -> {
                    String reason = msg.text(StoreWire.MAX_TEXT_BYTES, "reason");
                    msg.end();
                    int blamed = blamedRank(reason, rank, worldSize);
                    rankFailed(
                            blamed,
                            blamed == rank || reason.contains("reported by rank " + rank)
                                    ? reason
                                    : reason + " (reported by rank " + rank + ")");
                    send(new StoreWire.Writer(StoreWire.OK, msg.requestId).build());
                }
                case StoreWire.PING -> {
                    msg.end();
                    send(new StoreWire.Writer(StoreWire.PONG, 0).build());
                }
                case StoreWire.BYE -> {
                    msg.end();
                    saidBye = true;
                    // Reply first: once the last rank is marked as left, rank 0 may stop the host and close this
                    // socket.
                    send(new StoreWire.Writer(StoreWire.OK, msg.requestId).build());
                    synchronized (StoreServer.this) {
                        left[rank] = true;
                        StoreServer.this.notifyAll();
                    }
                    return false;
                }
                default -> throw new ProtocolException("unknown request type " + msg.type);
            }
            return true;
        }

        /** Sends one frame; a failed write closes the socket, and the reader then sees the failure. */
        void send(byte[] body) {
            synchronized (this) {
                try {
                    StoreWire.writeFrame(out, body);
                } catch (IOException e) {
                    close();
                }
            }
        }

        void close() {
            closeQuietly(socket);
        }
    }

    private record Waiter(Connection conn, int requestId, String key, ScheduledFuture<?>[] expiry) {}

    private void set(Connection from, int requestId, String key, byte[] value) {
        List<Waiter> wake;
        synchronized (this) {
            if (replyIfAborted(from, requestId) || replyIfStale(from, requestId, key)) return;
            values.put(key, value);
            wake = takeWaiters(key);
        }
        byte[] reply = new StoreWire.Writer(StoreWire.VALUE, 0).bytes(value).build();
        for (Waiter w : wake) w.conn.send(withRequestId(reply, w.requestId));
        from.send(new StoreWire.Writer(StoreWire.OK, requestId).build());
    }

    private void get(Connection from, int requestId, String key, long waitMillis) {
        byte[] value;
        synchronized (this) {
            if (replyIfAborted(from, requestId) || replyIfStale(from, requestId, key)) return;
            value = values.get(key);
            if (value == null && waitMillis > 0) {
                Waiter w = new Waiter(from, requestId, key, new ScheduledFuture<?>[1]);
                waiters.computeIfAbsent(key, k -> new ArrayList<>()).add(w);
                try {
                    w.expiry[0] = timers.schedule(() -> expire(w), waitMillis, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    return; // shutting down: the connection is about to close
                }
                return;
            }
        }
        if (value != null)
            from.send(new StoreWire.Writer(StoreWire.VALUE, requestId)
                    .bytes(value)
                    .build());
        else from.send(new StoreWire.Writer(StoreWire.TIMEOUT, requestId).build());
    }

    private void expire(Waiter w) {
        synchronized (this) {
            List<Waiter> list = waiters.get(w.key);
            if (list == null || !list.remove(w)) return;
            if (list.isEmpty()) waiters.remove(w.key);
        }
        w.conn.send(new StoreWire.Writer(StoreWire.TIMEOUT, w.requestId).build());
    }

    private void add(Connection from, int requestId, String key, long delta) {
        long now;
        byte[] stored;
        List<Waiter> wake;
        synchronized (this) {
            if (replyIfAborted(from, requestId) || replyIfStale(from, requestId, key)) return;
            byte[] old = values.get(key);
            try {
                now = old == null
                        ? delta
                        : Math.addExact(Long.parseLong(new String(old, StandardCharsets.US_ASCII)), delta);
            } catch (NumberFormatException e) {
                from.send(new StoreWire.Writer(StoreWire.ERROR, requestId)
                        .text("key '" + key + "' holds a value that is not a counter")
                        .build());
                return;
            } catch (ArithmeticException e) {
                from.send(new StoreWire.Writer(StoreWire.ERROR, requestId)
                        .text("counter '" + key + "' would overflow a 64-bit integer")
                        .build());
                return;
            }
            stored = Long.toString(now).getBytes(StandardCharsets.US_ASCII);
            values.put(key, stored);
            wake = takeWaiters(key);
        }
        byte[] reply = new StoreWire.Writer(StoreWire.VALUE, 0).bytes(stored).build();
        for (Waiter w : wake) w.conn.send(withRequestId(reply, w.requestId));
        from.send(new StoreWire.Writer(StoreWire.LONG, requestId).i64(now).build());
    }

    private List<Waiter> takeWaiters(String key) {
        List<Waiter> wake = waiters.remove(key);
        if (wake == null) return List.of();
        for (Waiter w : wake) if (w.expiry[0] != null) w.expiry[0].cancel(false);
        return wake;
    }

    /** Under the lock: answers with ABORTED if the job is aborted. */
    private boolean replyIfAborted(Connection from, int requestId) {
        if (abortReason == null) return false;
        from.send(aborted(requestId, abortedRank, abortReason));
        return true;
    }

    /** Key (elastic mode) under which the host publishes {@code epoch:r1,r2,...}: the failures so far. */
    public static final String FAILED_KEY = "unicomm.elastic/failed";

    /** Under the lock, elastic mode: answers "rank failed" to a request on a key of a generation older than the last failure. */
    private boolean replyIfStale(Connection from, int requestId, String key) {
        if (!elastic || failEpoch == 0) return false;
        int generation = generationOf(key);
        if (generation < 0 || generation >= failEpoch) return false;
        from.send(rankFailedMessage(requestId));
        return true;
    }

    /** The generation {@code N} of a key {@code e<N>/...}, or -1 for keys outside any generation. */
    static int generationOf(String key) {
        if (key.length() < 3 || key.charAt(0) != 'e') return -1;
        int slash = key.indexOf('/');
        if (slash < 2 || slash > 10) return -1;
        for (int i = 1; i < slash; i++) if (key.charAt(i) < '0' || key.charAt(i) > '9') return -1;
        return Integer.parseInt(key, 1, slash, 10);
    }

    /** Under the lock. */
    private byte[] rankFailedMessage(int requestId) {
        StoreWire.Writer w = new StoreWire.Writer(StoreWire.RANK_FAILED, requestId)
                .i32(failEpoch)
                .i32(failed.cardinality());
        for (int r = failed.nextSetBit(0); r >= 0; r = failed.nextSetBit(r + 1)) w.i32(r);
        return w.text(truncate(lastFailure)).build();
    }

    /**
     * Elastic mode: rank {@code rank}'s process is gone. Recorded (a new failure epoch and {@value #FAILED_KEY}),
     * every waiter is answered "rank failed" (it may wait for the dead rank; it retries if not) and every
     * other rank is told. The job goes on.
     */
    private void rankDied(int rank, String reason) {
        List<Waiter> wake = new ArrayList<>();
        List<Connection> tell = new ArrayList<>();
        byte[] news;
        synchronized (this) {
            if (abortReason != null || closing || failed.get(rank)) return;
            failed.set(rank);
            failEpoch++;
            lastFailure = reason; // every rank's exception names the failed ranks itself, in its own numbering
            StringBuilder v = new StringBuilder().append(failEpoch).append(':');
            for (int r = failed.nextSetBit(0); r >= 0; r = failed.nextSetBit(r + 1))
                v.append(r).append(r == failed.length() - 1 ? "" : ",");
            values.put(FAILED_KEY, v.toString().getBytes(StandardCharsets.US_ASCII));
            for (List<Waiter> list : waiters.values()) wake.addAll(list);
            waiters.clear();
            for (Waiter w : wake) if (w.expiry[0] != null) w.expiry[0].cancel(false);
            for (int r = 0; r < ranks.length; r++) if (ranks[r] != null && !failed.get(r)) tell.add(ranks[r]);
            news = rankFailedMessage(0);
            notifyAll();
        }
        LOG.log(System.Logger.Level.WARNING, "elastic job goes on without rank " + rank + ": " + reason);
        for (Waiter w : wake) w.conn.send(withRequestId(news, w.requestId));
        for (Connection c : tell) c.send(news);
    }

    /** The first failure wins: it is recorded, every waiter is woken and every rank is told. */
    private void rankFailed(int rank, String reason) {
        List<Waiter> wake = new ArrayList<>();
        List<Connection> tell = new ArrayList<>();
        synchronized (this) {
            if (abortReason != null || closing) return;
            abortedRank = rank;
            abortReason = reason;
            abortedAtNanos = System.nanoTime();
            for (List<Waiter> list : waiters.values()) wake.addAll(list);
            waiters.clear();
            for (Waiter w : wake) if (w.expiry[0] != null) w.expiry[0].cancel(false);
            for (Connection c : ranks) if (c != null) tell.add(c);
            abortSends++;
            notifyAll();
        }
        try {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "job aborted: " + new dev.unicomm.api.CommAbortedException(rank, reason).getMessage());
            for (Waiter w : wake) w.conn.send(aborted(w.requestId, rank, reason));
            for (Connection c : tell) c.send(aborted(0, rank, reason));
        } finally {
            abortSent();
        }
    }

    /**
     * The rank an abort blames: a rank that reports another's failure says so first ("rank 3 failed or
     * hung (reported by rank 1): ..."), and then that rank, not the reporter, is the one that failed.
     */
    static int blamedRank(String reason, int reporter, int worldSize) {
        if (reason == null || !reason.startsWith("rank ")) return reporter;
        int end = 5;
        while (end < reason.length() && end < 15 && Character.isDigit(reason.charAt(end))) end++;
        if (end == 5 || (end < reason.length() && reason.charAt(end) != ' ' && reason.charAt(end) != ':'))
            return reporter;
        long named = Long.parseLong(reason, 5, end, 10);
        return named >= 0 && named < worldSize ? (int) named : reporter;
    }

    private static byte[] aborted(int requestId, int rank, String reason) {
        return new StoreWire.Writer(StoreWire.ABORTED, requestId)
                .i32(rank)
                .text(truncate(reason))
                .build();
    }

    static String truncate(String reason) {
        // Keep well under MAX_TEXT_BYTES even for 4-byte UTF-8 characters.
        return reason.length() > StoreWire.MAX_TEXT_BYTES / 4
                ? reason.substring(0, StoreWire.MAX_TEXT_BYTES / 4) + "..."
                : reason;
    }

    /** A copy of an encoded reply with another request id (bytes 1..4 of the body). */
    private static byte[] withRequestId(byte[] body, int requestId) {
        byte[] copy = body.clone();
        copy[1] = (byte) (requestId >>> 24);
        copy[2] = (byte) (requestId >>> 16);
        copy[3] = (byte) (requestId >>> 8);
        copy[4] = (byte) requestId;
        return copy;
    }

    @Override
    public String toString() {
        return "StoreServer[port=" + port() + ", worldSize=" + worldSize + ", token=" + (token == null ? "none" : "***")
                + "]";
    }
}
