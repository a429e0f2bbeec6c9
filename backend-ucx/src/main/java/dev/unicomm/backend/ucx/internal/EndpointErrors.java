package dev.unicomm.backend.ucx.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The endpoints' error handler ({@code ucp_err_handler_cb_t}): UCX calls it from inside
 * {@code ucp_worker_progress} when a peer fails (PEER error mode). It only records the status for the
 * endpoint's PE; the next operation to that PE reports it. Without a handler UCX prints an ERROR line
 * for every failed endpoint. The {@code arg} is a key of {@link #OWNERS}, not a pointer.
 */
final class EndpointErrors {
    private EndpointErrors() {}

    /** A PE's endpoint failed with {@code status}. */
    interface Sink {
        void failed(int pe, byte status);
    }

    private static final Map<Long, Sink> OWNERS = new ConcurrentHashMap<>();
    private static final AtomicLong NEXT = new AtomicLong(1);
    private static final int PE_BITS = 24;
    /** One stub for the JVM's life: UCX may call it until the last worker is destroyed. */
    static final MemorySegment CALLBACK = stub();

    private static MemorySegment stub() {
        try {
            var target = MethodHandles.lookup()
                    .findStatic(
                            EndpointErrors.class,
                            "onError",
                            MethodType.methodType(void.class, MemorySegment.class, MemorySegment.class, byte.class));
            return Linker.nativeLinker()
                    .upcallStub(target, FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_BYTE), Arena.global());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Registers {@code sink}; returns the owner id whose {@link #arg} values go into the endpoints' params. */
    static long register(Sink sink) {
        long id = NEXT.getAndIncrement();
        OWNERS.put(id, sink);
        return id;
    }

    static void unregister(long id) {
        OWNERS.remove(id);
    }

    /** The {@code arg} of PE {@code pe}'s endpoint of owner {@code id}. */
    static MemorySegment arg(long id, int pe) {
        return MemorySegment.ofAddress((id << PE_BITS) | pe);
    }

    /**
     * {@code ucp_ep_params_t} for an endpoint to the worker at {@code workerAddress}, in PEER error mode with this
     * handler reporting to owner {@code id} as PE {@code pe}.
     */
    static MemorySegment endpointParams(Arena a, byte[] workerAddress, long id, int pe) {
        MemorySegment params = a.allocate(UcpAbi.EP_PARAMS_SIZE, 8);
        params.set(
                JAVA_LONG,
                UcpAbi.EP_PARAMS_FIELD_MASK,
                UcpAbi.EP_PARAM_FIELD_REMOTE_ADDRESS
                        | UcpAbi.EP_PARAM_FIELD_ERR_HANDLING_MODE
                        | UcpAbi.EP_PARAM_FIELD_ERR_HANDLER);
        params.set(ADDRESS, UcpAbi.EP_PARAMS_ERR_HANDLER_CB, CALLBACK);
        params.set(ADDRESS, UcpAbi.EP_PARAMS_ERR_HANDLER_ARG, arg(id, pe));
        params.set(ADDRESS, UcpAbi.EP_PARAMS_ADDRESS, a.allocateFrom(JAVA_BYTE, workerAddress));
        params.set(JAVA_INT, UcpAbi.EP_PARAMS_ERR_MODE, UcpAbi.ERR_HANDLING_MODE_PEER);
        return params;
    }

    // Called by UCX on the thread that progresses the worker: must never throw into native code.
    private static void onError(MemorySegment arg, MemorySegment ep, byte status) {
        try {
            long a = arg.address();
            Sink sink = OWNERS.get(a >>> PE_BITS);
            if (sink != null) sink.failed((int) (a & ((1 << PE_BITS) - 1)), status);
        } catch (Throwable ignored) {
            // nothing may unwind through UCX; the peer's failure still surfaces through the requests' statuses
        }
    }
}
