package dev.unicomm.backend.ucx.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Completion callbacks of endpoint requests ({@code ucp_send_nbx_callback_t} for put/get flushes, sends
 * and endpoint closes, {@code ucp_tag_recv_nbx_callback_t} for receives): UCX calls them from inside
 * {@code ucp_worker_progress}, i.e. on the endpoint's progress thread. The {@code user_data} is a key of
 * {@link #PENDING}, not a pointer. A callback frees its request and completes the future; it never throws
 * into native code.
 */
final class Completions {
    private Completions() {}

    /** What a completed receive carried. */
    record Tagged(long tag, long length) {}

    /** One outstanding request; {@code owner} tells whose it is (an endpoint fails and cancels its own at close). */
    static final class Pending {
        final Object owner;
        final boolean receive;
        final Ucp ucp;
        final CompletableFuture<Object> future = new CompletableFuture<>();
        /** The request pointer, once the posting call returned one (receives only: close cancels them). */
        volatile MemorySegment request;

        Pending(Object owner, boolean receive, Ucp ucp) {
            this.owner = owner;
            this.receive = receive;
            this.ucp = ucp;
        }
    }

    private static final Map<Long, Pending> PENDING = new ConcurrentHashMap<>();
    private static final AtomicLong NEXT = new AtomicLong(1);
    /** One stub each for the JVM's life: UCX may call them until the last worker is destroyed. */
    static final MemorySegment SEND = stub(
            "onSend",
            MethodType.methodType(void.class, MemorySegment.class, byte.class, MemorySegment.class),
            FunctionDescriptor.ofVoid(ADDRESS, JAVA_BYTE, ADDRESS));

    static final MemorySegment RECV = stub(
            "onRecv",
            MethodType.methodType(
                    void.class, MemorySegment.class, byte.class, MemorySegment.class, MemorySegment.class),
            FunctionDescriptor.ofVoid(ADDRESS, JAVA_BYTE, ADDRESS, ADDRESS));

    private static MemorySegment stub(String name, MethodType type, FunctionDescriptor fd) {
        try {
            return Linker.nativeLinker()
                    .upcallStub(MethodHandles.lookup().findStatic(Completions.class, name, type), fd, Arena.global());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Registers a pending request before it is posted (its callback may run before the posting call returns); returns its key. */
    static long register(Pending p) {
        long id = NEXT.getAndIncrement();
        PENDING.put(id, p);
        return id;
    }

    /** Forgets {@code id}: the request completed in place, failed at once, or was never posted. */
    static void forget(long id) {
        PENDING.remove(id);
    }

    /** The pending requests of {@code owner}. */
    static Map<Long, Pending> of(Object owner) {
        Map<Long, Pending> mine = new java.util.HashMap<>();
        PENDING.forEach((k, v) -> {
            if (v.owner == owner) mine.put(k, v);
        });
        return mine;
    }

    /** {@code status} as the future's outcome: null on success, else the status (the owner turns it into an exception). */
    private static void finish(Pending p, byte status, Object value) {
        if (status == UcpAbi.OK) p.future.complete(value);
        else p.future.completeExceptionally(new StatusException(status, p.ucp.statusString(status)));
    }

    private static void onSend(MemorySegment request, byte status, MemorySegment userData) {
        try {
            Pending p = PENDING.remove(userData.address());
            if (p != null) {
                p.ucp.requestFree(request);
                finish(p, status, null);
            }
        } catch (Throwable ignored) {
            // nothing may unwind through UCX
        }
    }

    private static void onRecv(MemorySegment request, byte status, MemorySegment info, MemorySegment userData) {
        try {
            Pending p = PENDING.remove(userData.address());
            if (p != null) {
                Tagged t = status == UcpAbi.OK ? read(info) : null;
                p.ucp.requestFree(request);
                finish(p, status, t);
            }
        } catch (Throwable ignored) {
            // nothing may unwind through UCX
        }
    }

    /** Reads a {@code ucp_tag_recv_info_t}. */
    static Tagged read(MemorySegment info) {
        MemorySegment i = info.reinterpret(UcpAbi.TAG_RECV_INFO_SIZE);
        return new Tagged(
                i.get(ValueLayout.JAVA_LONG, UcpAbi.TAG_RECV_INFO_TAG),
                i.get(ValueLayout.JAVA_LONG, UcpAbi.TAG_RECV_INFO_LENGTH));
    }

    /** A request that completed with a UCX error status. */
    static final class StatusException extends RuntimeException {
        final byte status;

        StatusException(byte status, String words) {
            super(words + " (UCX status " + status + ")", null, false, false);
            this.status = status;
        }
    }
}
