package dev.unicomm.internal.rendezvous;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommException;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.RankFailedException;
import dev.unicomm.spi.Store;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;

/**
 * A rank's connection to the job's rendezvous store ({@link StoreServer}). Thread-safe: requests
 * from several threads are matched to their replies by id. A reader thread watches the connection:
 * when the host reports that a rank failed, or the host itself disappears, the store turns
 * <em>unhealthy</em> — every pending and later call, and {@link #checkHealthy()}, throw
 * {@link CommAbortedException} naming the failed rank ({@code -1} for the host). A rank whose
 * process ends without {@link #close()} counts as failed: the host cannot tell it from a crash.
 */
public final class TcpStore implements Store {
    private static final System.Logger LOG = System.getLogger("dev.unicomm.store");
    /** Extra time a waiting call gives the host to report its own timeout before giving up locally. */
    private static final long REPLY_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final String address;
    private final int rank;
    private final int size;
    private final Duration timeout;
    private final StoreServer hosted;
    private final Map<Integer, CompletableFuture<StoreWire.Reader>> pending = new ConcurrentHashMap<>();
    private final AtomicInteger nextId = new AtomicInteger();
    private final Thread reader;
    private volatile Failure failure;
    private volatile boolean closing;
    private volatile boolean leaving;
    private final AtomicBoolean closeStarted = new AtomicBoolean();

    private record Failure(int rank, String reason) {}

    /** Elastic mode: the host's latest report of dead ranks (job ranks, ascending). */
    public record Deaths(int epoch, int[] jobRanks, String reason) {
        static final Deaths NONE = new Deaths(0, new int[0], "");
    }

    private volatile Deaths deaths = Deaths.NONE;
    /** When the host last sent anything; read by the heartbeat thread (see {@link #keepAlive}). */
    private volatile long lastHeardNanos = System.nanoTime();

    private TcpStore(Socket socket, String address, int rank, int size, Duration timeout, StoreServer hosted)
            throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 1 << 16));
        this.out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
        this.address = address;
        this.rank = rank;
        this.size = size;
        this.timeout = timeout;
        this.hosted = hosted;
        this.reader = Thread.ofPlatform()
                .daemon()
                .name("unicomm-store-reader-" + rank)
                .unstarted(this::readLoop);
    }

    /**
     * Connects rank {@code rank} of a {@code size}-rank job to the store at {@code host:port},
     * retrying while the host is not up yet, until {@code timeout} has passed.
     *
     * @param token  the job's shared secret, or {@code null}
     * @param ssl    TLS context (the host's certificate must be trusted by it, and it must hold this rank's key), or {@code null}
     * @param hosted the server this rank runs (rank 0), stopped by {@link #close()} once every rank has left; or {@code null}
     * @throws CommTimeoutException if the host could not be reached in time
     * @throws CommException if the host rejected this rank (wrong token, rank already joined, size mismatch)
     */
    public static TcpStore connect(
            String host,
            int port,
            int rank,
            int size,
            String token,
            SSLContext ssl,
            Duration timeout,
            StoreServer hosted) {
        return connect(host, port, rank, size, token, null, ssl, timeout, hosted);
    }

    /** As {@link #connect(String, int, int, int, String, SSLContext, Duration, StoreServer)}, presenting job id {@code jobId} ({@code null}: none). */
    public static TcpStore connect(
            String host,
            int port,
            int rank,
            int size,
            String token,
            String jobId,
            SSLContext ssl,
            Duration timeout,
            StoreServer hosted) {
        if (size < 1) throw new IllegalArgumentException("world size must be >= 1, got " + size);
        if (rank < 0 || rank >= size)
            throw new IllegalArgumentException("rank must be in [0, " + size + "), got " + rank);
        if (port < 1 || port > 65535)
            throw new IllegalArgumentException("store port must be in [1, 65535], got " + port);
        if (timeout == null || timeout.isNegative() || timeout.isZero())
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        if (jobId != null && jobId.getBytes(StandardCharsets.UTF_8).length > StoreWire.MAX_JOB_ID_BYTES)
            throw new IllegalArgumentException(
                    "a job id may have at most " + StoreWire.MAX_JOB_ID_BYTES + " UTF-8 bytes");
        if (token != null && token.getBytes(StandardCharsets.UTF_8).length > StoreWire.MAX_KEY_BYTES)
            throw new IllegalArgumentException(
                    "the job token may have at most " + StoreWire.MAX_KEY_BYTES + " UTF-8 bytes");
        String address = host + ":" + port;
        long deadline = System.nanoTime() + nanos(timeout);
        long backoffMillis = 20;
        int attempts = 0;
        IOException last = null;
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) break;
            Socket s = null;
            attempts++;
            try {
                s = open(host, port, ssl, left);
                TcpStore store = new TcpStore(s, address, rank, size, timeout, hosted);
                store.hello(token, jobId, left);
                store.reader.start();
                return store;
            } catch (SSLException e) {
                closeQuietly(s);
                // A certificate the other side does not trust will not change: say so at once. Anything else
                // (reset, closed mid-handshake while the host starts or sheds load) is retried like plain TCP.
                if (isTrustFailure(e))
                    throw new CommException(
                            "TLS handshake with the rendezvous store at " + address + " failed for rank " + rank
                                    + ": the certificates do not match (do all ranks use the job's keystore, UNICOMM_TLS_KEYSTORE?): "
                                    + e.getMessage(),
                            e);
                last = e;
            } catch (IOException e) {
                // Not up yet, refused, reset, or closed before the hello was answered (the host starts or fills up):
                // retry.
                last = e;
                closeQuietly(s);
            } catch (RuntimeException e) {
                closeQuietly(s);
                throw e;
            }
            long sleep =
                    Math.min(backoffMillis, TimeUnit.NANOSECONDS.toMillis(Math.max(0, deadline - System.nanoTime())));
            if (sleep > 0) {
                try {
                    Thread.sleep(sleep);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new CommException(
                            "interrupted while rank " + rank + " connected to the rendezvous store at " + address, e);
                }
            }
            backoffMillis = Math.min(500, backoffMillis * 2);
        }
        throw new CommTimeoutException(
                "rank " + rank + " connecting to the rendezvous store at " + address + " (" + attempts + " attempts; "
                        + whatHappened(last, ssl != null) + ")",
                timeout);
    }

    /** One phrase for the last failed attempt: what the rank saw and what it likely means. */
    private static String whatHappened(IOException last, boolean tls) {
        if (last == null) return "no attempt could be made";
        String seen = last.getClass().getSimpleName() + (last.getMessage() == null ? "" : ": " + last.getMessage());
        if (last instanceof ConnectException
                || last instanceof NoRouteToHostException
                || last instanceof UnknownHostException)
            return "nothing accepted connections there; last error " + seen
                    + " - is rank 0 running, and is the address right?";
        if (last instanceof SocketTimeoutException)
            return "the host did not answer in time; last error " + seen + " - is it overloaded or behind a firewall?";
        return "the host accepted but closed or reset the connection before answering the hello"
                + (tls ? " (during TLS)" : "") + "; last error " + seen
                + " - is it shutting down, or flooded by other connections to its port?";
    }

    /** Whether a TLS failure is about certificates (a setup mistake) rather than the connection. */
    static boolean isTrustFailure(SSLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.security.GeneralSecurityException) return true;
            String m = t.getMessage();
            if (m != null
                    && (m.contains("certificate")
                            || m.contains("PKIX")
                            || m.contains("unknown_ca")
                            || m.contains("access_denied"))) return true;
        }
        return false;
    }

    private static Socket open(String host, int port, SSLContext ssl, long leftNanos) throws IOException {
        int connectMillis = (int) Math.max(1, Math.min(2000, TimeUnit.NANOSECONDS.toMillis(leftNanos)));
        Socket plain = new Socket();
        try {
            plain.setTcpNoDelay(true);
            plain.setKeepAlive(true);
            plain.connect(new InetSocketAddress(host, port), connectMillis);
            if (ssl == null) return plain;
            SSLSocket tls = (SSLSocket) ssl.getSocketFactory().createSocket(plain, host, port, true);
            tls.setUseClientMode(true);
            return tls;
        } catch (IOException | RuntimeException e) {
            closeQuietly(plain);
            throw e;
        }
    }

    private void hello(String token, String jobId, long leftNanos) throws IOException {
        socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(leftNanos))));
        if (socket instanceof SSLSocket tls) tls.startHandshake();
        send(new StoreWire.Writer(StoreWire.HELLO, 1)
                .i32(StoreWire.MAGIC)
                .i16(StoreWire.VERSION)
                .i32(rank)
                .i32(size)
                .optionalBytes(token == null ? null : token.getBytes(StandardCharsets.UTF_8))
                .optionalBytes(jobId == null ? null : jobId.getBytes(StandardCharsets.UTF_8))
                .build());
        StoreWire.Reader reply = new StoreWire.Reader(StoreWire.readFrame(in, StoreWire.MAX_FRAME));
        switch (reply.type) {
            case StoreWire.OK -> {}
            case StoreWire.ERROR ->
                throw new CommException("the rendezvous store at " + address + " rejected rank " + rank + ": "
                        + reply.text(StoreWire.MAX_TEXT_BYTES, "error")
                        + "; if this job's rank 0 does not serve that address, another job"
                        + " does: give each job its own port (MASTER_PORT, or UNICOMM_STORE=host:port)");
            case StoreWire.ABORTED ->
                throw new CommAbortedException(reply.i32(), reply.text(StoreWire.MAX_TEXT_BYTES, "reason"));
            default -> throw new java.net.ProtocolException("unexpected reply type " + reply.type + " to hello");
        }
        socket.setSoTimeout(0);
    }

    /**
     * Pings the host every {@link Liveness#PING_INTERVAL} on a daemon thread, so that it can tell this rank
     * is alive (see {@link StoreServer#watchLiveness}), and fails this store, naming the host, once the host
     * has sent nothing for {@code limit}: its machine or link is gone, or rank 0 is stopped.
     */
    public TcpStore keepAlive(Duration limit) {
        long limitNanos = nanos(limit);
        Thread.ofPlatform().daemon().name("unicomm-store-heartbeat-" + rank).start(() -> heartbeat(limitNanos));
        return this;
    }

    private void heartbeat(long limitNanos) {
        byte[] ping = new StoreWire.Writer(StoreWire.PING, 0).build();
        long interval = Liveness.PING_INTERVAL.toNanos();
        while (!closing && !leaving && failure == null) {
            java.util.concurrent.locks.LockSupport.parkNanos(interval);
            if (closing || leaving || failure != null) return;
            long quiet = System.nanoTime() - lastHeardNanos;
            if (quiet > limitNanos) {
                fail(
                        -1,
                        "the rendezvous store at " + address + " (rank 0's process) sent nothing for "
                                + TimeUnit.NANOSECONDS.toSeconds(limitNanos)
                                + " s: its host or network link is down, or rank 0 is stopped");
                closeQuietly(socket); // ends the reader, which would otherwise wait for a host that may never answer
                return;
            }
            try {
                send(ping);
            } catch (IOException e) {
                return; // the reader sees the broken connection and records it
            }
        }
    }

    /** This rank. */
    public int rank() {
        return rank;
    }

    /** The job's number of ranks. */
    public int size() {
        return size;
    }

    @Override
    public void set(String key, byte[] value) {
        checkKey(key);
        if (value == null) throw new IllegalArgumentException("value of '" + key + "' must not be null");
        if (value.length > StoreWire.MAX_VALUE_BYTES)
            throw new IllegalArgumentException("value of '" + key + "' is " + value.length
                    + " bytes; the store holds at most " + StoreWire.MAX_VALUE_BYTES + " bytes per key");
        StoreWire.Reader r = call(
                new StoreWire.Writer(StoreWire.SET, 0).text(key).bytes(value),
                "store set('" + key + "')",
                nanos(timeout));
        expect(r, StoreWire.OK, "set");
    }

    @Override
    public byte[] get(String key) {
        return get(key, timeout);
    }

    @Override
    public byte[] get(String key, Duration limit) {
        checkKey(key);
        if (limit == null || limit.isNegative() || limit.isZero())
            throw new IllegalArgumentException("get('" + key + "') needs a positive timeout, got " + limit);
        long millis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos(limit)));
        String what = "store get('" + key + "')";
        StoreWire.Reader r = call(
                new StoreWire.Writer(StoreWire.GET, 0).text(key).i64(millis), what, nanos(limit) + REPLY_SLACK_NANOS);
        if (r.type == StoreWire.TIMEOUT) throw new CommTimeoutException(what, limit);
        expect(r, StoreWire.VALUE, "get");
        try {
            return r.bytes(StoreWire.MAX_VALUE_BYTES, "value");
        } catch (java.net.ProtocolException e) {
            throw new CommException("malformed reply from the rendezvous store: " + e.getMessage(), e);
        }
    }

    @Override
    public long add(String key, long delta) {
        checkKey(key);
        StoreWire.Reader r = call(
                new StoreWire.Writer(StoreWire.ADD, 0).text(key).i64(delta),
                "store add('" + key + "')",
                nanos(timeout));
        expect(r, StoreWire.LONG, "add");
        try {
            return r.i64();
        } catch (java.net.ProtocolException e) {
            throw new CommException("malformed reply from the rendezvous store: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean contains(String key) {
        checkKey(key);
        StoreWire.Reader r = call(
                new StoreWire.Writer(StoreWire.CONTAINS, 0).text(key), "store contains('" + key + "')", nanos(timeout));
        expect(r, StoreWire.BOOL, "contains");
        try {
            return r.u8() != 0;
        } catch (java.net.ProtocolException e) {
            throw new CommException("malformed reply from the rendezvous store: " + e.getMessage(), e);
        }
    }

    /**
     * Counts this rank in with {@code add}; the last rank to arrive publishes a release key that the
     * others wait for (so a barrier costs two round trips and no polling).
     */
    @Override
    public void barrier(String name) {
        checkKey(name);
        long deadline = System.nanoTime() + nanos(timeout);
        String base = "unicomm/barrier/" + name;
        long arrived = add(base + "/count", 1);
        if (arrived > size)
            throw new IllegalStateException("barrier '" + name + "' was entered " + arrived + " times in a job of "
                    + size + " ranks: use each barrier name once per rank");
        if (arrived == size) {
            set(base + "/open", new byte[] {1});
            return;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) throw new CommTimeoutException("store barrier('" + name + "')", timeout);
        try {
            get(base + "/open", Duration.ofNanos(left));
        } catch (CommTimeoutException e) {
            throw new CommTimeoutException(
                    "store barrier('" + name + "') (" + arrived + " of " + size + " ranks had arrived when rank " + rank
                            + " entered)",
                    timeout);
        }
    }

    /** Tells the host (and so every rank) that this rank fails for {@code reason}. Never throws. */
    @Override
    public void abort(String reason) {
        String why = reason == null ? "aborted" : StoreServer.truncate(reason);
        try {
            if (failure == null && !closing) {
                call(
                        new StoreWire.Writer(StoreWire.ABORT, 0).text(why),
                        "store abort",
                        Math.min(nanos(timeout), TimeUnit.SECONDS.toNanos(5)));
            }
        } catch (CommAbortedException e) {
            // Delivered (the host already broadcast it back), or the job had failed before.
        } catch (RuntimeException e) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "rank " + rank + " could not deliver its abort to the rendezvous store: " + e.getMessage());
        }
        fail(StoreServer.blamedRank(why, rank, size), why);
    }

    @Override
    public void checkHealthy() {
        Failure f = failure;
        if (f != null) throw new CommAbortedException(f.rank, f.reason);
    }

    /**
     * Says goodbye (a clean close: the others are not aborted) and disconnects. On rank 0 this also
     * waits, at most the timeout, until every rank has said goodbye, then stops the host. After an abort
     * it first waits until every rank has heard of it (at most until the timeout, counted from the host's
     * start, for ranks that have not joined), so that no survivor sees the host vanish instead.
     */
    @Override
    public void close() {
        if (!closeStarted.compareAndSet(false, true)) return;
        if (failure == null) {
            leaving = true; // the host hangs up after our goodbye: that end of stream is not a failure
            try {
                call(new StoreWire.Writer(StoreWire.BYE, 0), "store close", nanos(timeout));
            } catch (RuntimeException e) {
                LOG.log(
                        System.Logger.Level.DEBUG,
                        "rank " + rank + ": goodbye to the rendezvous store failed: " + e.getMessage());
            }
        }
        closing = true;
        try {
            if (hosted != null) {
                try {
                    if (failure == null && !hosted.awaitAllLeft(timeout))
                        LOG.log(
                                System.Logger.Level.WARNING,
                                "rendezvous store: not every rank closed its store within " + timeout.toMillis()
                                        + " ms; stopping the host anyway");
                    hosted.awaitAbortHeard(timeout); // after an abort: the slower survivors must learn who failed
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    hosted.close();
                }
            }
        } finally {
            closeQuietly(socket);
            failPending(new CommException("the store of rank " + rank + " is closed"));
        }
    }

    private StoreWire.Reader call(StoreWire.Writer request, String what, long waitNanos) {
        checkHealthy();
        if (closing) throw new IllegalStateException("the rendezvous store of rank " + rank + " is closed");
        int id = nextIdNonZero();
        CompletableFuture<StoreWire.Reader> reply = new CompletableFuture<>();
        pending.put(id, reply);
        try {
            // A failure seen between checkHealthy and put would have missed this future.
            Failure f = failure;
            if (f != null) throw new CommAbortedException(f.rank, f.reason);
            byte[] body = request.build();
            body[1] = (byte) (id >>> 24);
            body[2] = (byte) (id >>> 16);
            body[3] = (byte) (id >>> 8);
            body[4] = (byte) id;
            try {
                send(body);
            } catch (IOException e) {
                fail(-1, "lost the connection to the rendezvous host at " + address + " (" + e.getMessage() + ")");
                checkHealthy();
            }
            StoreWire.Reader r = reply.get(waitNanos, TimeUnit.NANOSECONDS);
            if (r.type == StoreWire.ABORTED) {
                checkHealthy(); // the reader thread has recorded it
            }
            if (r.type == StoreWire.RANK_FAILED) {
                Deaths d = recordDeaths(r);
                throw new RankFailedException(
                        d.jobRanks(), d.reason() + " (seen by rank " + rank + " in " + what + ")");
            }
            if (r.type == StoreWire.ERROR) {
                String msg;
                try {
                    msg = r.text(StoreWire.MAX_TEXT_BYTES, "error");
                } catch (java.net.ProtocolException e) {
                    msg = "(unreadable error)";
                }
                throw new IllegalStateException(what + " failed: " + msg);
            }
            return r;
        } catch (TimeoutException e) {
            throw new CommTimeoutException(what, Duration.ofNanos(waitNanos));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof CommAbortedException) checkHealthy();
            // The cause's words are in the message: a cause would print them a second time.
            if (e.getCause() instanceof RuntimeException re)
                throw new CommException(what + " failed: " + re.getMessage());
            throw new CommException(what + " failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommException(what + " was interrupted", e);
        } finally {
            pending.remove(id);
        }
    }

    private int nextIdNonZero() {
        int id;
        do id = nextId.incrementAndGet();
        while (id == 0);
        return id;
    }

    private void send(byte[] body) throws IOException {
        synchronized (out) {
            StoreWire.writeFrame(out, body);
        }
    }

    private void readLoop() {
        try {
            while (true) {
                StoreWire.Reader msg = new StoreWire.Reader(StoreWire.readFrame(in, StoreWire.MAX_FRAME));
                lastHeardNanos = System.nanoTime();
                if (msg.type == StoreWire.PONG) continue;
                if (msg.type == StoreWire.ABORTED) {
                    fail(msg.i32(), msg.text(StoreWire.MAX_TEXT_BYTES, "reason"));
                    continue;
                }
                if (msg.type == StoreWire.RANK_FAILED && msg.requestId == 0) {
                    recordDeaths(msg);
                    continue;
                }
                CompletableFuture<StoreWire.Reader> reply = pending.get(msg.requestId);
                if (reply != null) reply.complete(msg); // a reply to a call that already timed out is dropped
            }
        } catch (IOException e) {
            if (!closing && !leaving)
                fail(
                        -1,
                        "lost the connection to the rendezvous host at " + address + " ("
                                + (e instanceof EOFException ? "it closed the connection" : e.getMessage()) + ")");
            else
                failPending(new CommException("the connection of rank " + rank + " to the rendezvous store is closed"));
        }
    }

    /** Elastic mode: the dead ranks the host has reported so far (updated by the reader thread, a volatile read). */
    public Deaths deaths() {
        return deaths;
    }

    /**
     * Elastic mode: asks the host for its record of dead ranks (authoritative: a report pushed to this
     * rank may still be on its way).
     */
    public Deaths currentDeaths() {
        if (!contains(StoreServer.FAILED_KEY)) return deaths;
        String v = new String(get(StoreServer.FAILED_KEY), StandardCharsets.US_ASCII);
        int colon = v.indexOf(':');
        int epoch = Integer.parseInt(v.substring(0, colon));
        String list = v.substring(colon + 1);
        int[] ranks = list.isEmpty()
                ? new int[0]
                : java.util.Arrays.stream(list.split(","))
                        .mapToInt(Integer::parseInt)
                        .toArray();
        Deaths d = deaths;
        return epoch > d.epoch() ? new Deaths(epoch, ranks, "the rendezvous store recorded its process as ended") : d;
    }

    /** Reads a RANK_FAILED message and keeps the newest report. */
    private Deaths recordDeaths(StoreWire.Reader msg) {
        Deaths d;
        try {
            int epoch = msg.i32();
            int n = msg.i32();
            if (n < 0 || n > size) throw new java.net.ProtocolException("rank failure report names " + n + " ranks");
            int[] ranks = new int[n];
            for (int i = 0; i < n; i++) ranks[i] = msg.i32();
            d = new Deaths(epoch, ranks, msg.text(StoreWire.MAX_TEXT_BYTES, "reason"));
        } catch (java.net.ProtocolException e) {
            throw new CommException("malformed rank failure report from the rendezvous store: " + e.getMessage(), e);
        }
        synchronized (this) {
            if (d.epoch() > deaths.epoch()) deaths = d;
            return deaths;
        }
    }

    /** Records the first failure and wakes every pending call. */
    private void fail(int failedRank, String reason) {
        synchronized (this) {
            if (failure != null) return;
            failure = new Failure(failedRank, reason);
        }
        failPending(new CommAbortedException(failedRank, reason));
    }

    private void failPending(RuntimeException why) {
        for (CompletableFuture<StoreWire.Reader> f : pending.values()) f.completeExceptionally(why);
    }

    /** A duration in nanoseconds, capped so that deadlines computed from it cannot overflow (~73 years). */
    static long nanos(Duration d) {
        return d.compareTo(LONGEST_WAIT) > 0 ? LONGEST_WAIT.toNanos() : d.toNanos();
    }

    private static final Duration LONGEST_WAIT = Duration.ofNanos(Long.MAX_VALUE / 4);

    private static void checkKey(String key) {
        if (key == null) throw new IllegalArgumentException("store key must not be null");
        int bytes = key.getBytes(StandardCharsets.UTF_8).length;
        if (bytes == 0 || bytes > StoreWire.MAX_KEY_BYTES)
            throw new IllegalArgumentException(
                    "store key must be 1.." + StoreWire.MAX_KEY_BYTES + " UTF-8 bytes, got " + bytes);
    }

    private static void expect(StoreWire.Reader r, byte type, String op) {
        if (r.type != type) throw new CommException("unexpected reply type " + r.type + " to store " + op);
    }

    private static void closeQuietly(Socket s) {
        if (s == null) return;
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing left to do
        }
    }

    @Override
    public String toString() {
        return "TcpStore[rank=" + rank + "/" + size + ", host=" + address + (socket instanceof SSLSocket ? ", tls" : "")
                + "]";
    }
}
