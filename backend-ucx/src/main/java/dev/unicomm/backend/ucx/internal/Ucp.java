package dev.unicomm.backend.ucx.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * libucp's C API through the JDK's foreign-function API: one downcall handle per function, bound on
 * first use from {@code libucp.so.0} (and {@code ucs_status_string} from the libucs it links). Only
 * signatures live here; struct layouts and constants are in {@link UcpAbi}. {@code ucs_status_t} is
 * an {@code int8_t} enum in 1.13 (sizeof 1), hence {@code JAVA_BYTE} returns.
 */
final class Ucp {
    static final String LIBRARY = "libucp.so.0";

    private final MethodHandle configRead, configRelease, initVersion, cleanup, getVersion;
    private final MethodHandle workerCreate, workerDestroy, workerGetAddress, workerReleaseAddress, workerProgress;
    private final MethodHandle workerGetEfd, workerArm, workerSignal, workerFlushNbx, workerFence;
    private final MethodHandle epCreate, epCloseNbx, epFlushNbx, tagSendNbx, tagRecvNbx, requestCancel, configModify;
    private final MethodHandle contextPrintInfo, openMemstream, fclose, free;
    private final MethodHandle memMap, memUnmap, rkeyPack, rkeyBufferRelease, epRkeyUnpack, rkeyDestroy;
    private final MethodHandle putNbx, getNbx, atomicOpNbx, requestCheckStatus, requestFree;
    private final MethodHandle statusString, poll, epPrintInfo;
    private final MemorySegment stderrFile;

    /** By library name; a failed load is kept, so later calls fail the same way without trying again. */
    private static final java.util.Map<String, Ucp> LOADED = new java.util.HashMap<>();

    private static final java.util.Map<String, RuntimeException> FAILED = new java.util.HashMap<>();

    private Ucp(SymbolLookup ucp) {
        configRead = bind(ucp, "ucp_config_read", FunctionDescriptor.of(JAVA_BYTE, ADDRESS, ADDRESS, ADDRESS));
        configRelease = bind(ucp, "ucp_config_release", FunctionDescriptor.ofVoid(ADDRESS));
        initVersion = bind(
                ucp,
                "ucp_init_version",
                FunctionDescriptor.of(JAVA_BYTE, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        cleanup = bind(ucp, "ucp_cleanup", FunctionDescriptor.ofVoid(ADDRESS));
        getVersion = bind(ucp, "ucp_get_version", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS));
        workerCreate = bind(ucp, "ucp_worker_create", FunctionDescriptor.of(JAVA_BYTE, ADDRESS, ADDRESS, ADDRESS));
        workerDestroy = bind(ucp, "ucp_worker_destroy", FunctionDescriptor.ofVoid(ADDRESS));
        workerGetAddress =
                bind(ucp, "ucp_worker_get_address", FunctionDescriptor.of(JAVA_BYTE, ADDRESS, ADDRESS, ADDRESS));
        workerReleaseAddress = bind(ucp, "ucp_worker_release_address", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
        workerProgress = bind(ucp, "ucp_worker_progress", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        workerGetEfd = bind(ucp, "ucp_worker_get_efd", FunctionDescriptor.of(JAVA_BYTE, ADDRESS, ADDRESS));
        workerArm = bind(ucp, "ucp_worker_arm", FunctionDescriptor.of(JAVA_BYTE, ADDRESS));
        workerSignal = bind(ucp, "ucp_worker_signal", FunctionDescriptor.of(JAVA_BYTE, ADDRESS));
        workerFlushNbx = bind(ucp, "ucp_worker_flush_nbx", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        workerFence = bind(ucp, "ucp_worker_fence", FunctionDescriptor.of(JAVA_BYTE, ADDRESS));
        epCreate = bind(ucp, "ucp_ep_create", FunctionDescriptor.of(JAVA_BYTE, ADDRESS, ADDRESS, ADDRESS));
        epCloseNbx = bind(ucp, "ucp_ep_close_nbx", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        epFlushNbx = bind(ucp, "ucp_ep_flush_nbx", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        // ucs_status_ptr_t f(ep, buffer, count, tag, param) / f(worker, buffer, count, tag, tag_mask, param)
        tagSendNbx = bind(
                ucp,
                "ucp_tag_send_nbx",
                FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS));
        tagRecvNbx = bind(
                ucp,
                "ucp_tag_recv_nbx",
                FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS));
        requestCancel = bind(ucp, "ucp_request_cancel", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
        configModify = bind(ucp, "ucp_config_modify", FunctionDescriptor.of(JAVA_BYTE, ADDRESS, ADDRESS, ADDRESS));
        contextPrintInfo = bind(ucp, "ucp_context_print_info", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
        memMap = bind(ucp, "ucp_mem_map", FunctionDescriptor.of(JAVA_BYTE, ADDRESS, ADDRESS, ADDRESS));
        memUnmap = bind(ucp, "ucp_mem_unmap", FunctionDescriptor.of(JAVA_BYTE, ADDRESS, ADDRESS));
        rkeyPack = bind(ucp, "ucp_rkey_pack", FunctionDescriptor.of(JAVA_BYTE, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        rkeyBufferRelease = bind(ucp, "ucp_rkey_buffer_release", FunctionDescriptor.ofVoid(ADDRESS));
        epRkeyUnpack = bind(ucp, "ucp_ep_rkey_unpack", FunctionDescriptor.of(JAVA_BYTE, ADDRESS, ADDRESS, ADDRESS));
        rkeyDestroy = bind(ucp, "ucp_rkey_destroy", FunctionDescriptor.ofVoid(ADDRESS));
        // ucs_status_ptr_t f(ep, buffer, count, remote_addr, rkey, param)
        putNbx = bind(
                ucp,
                "ucp_put_nbx",
                FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS));
        getNbx = bind(
                ucp,
                "ucp_get_nbx",
                FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS));
        atomicOpNbx = bind(
                ucp,
                "ucp_atomic_op_nbx",
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS));
        requestCheckStatus = bind(ucp, "ucp_request_check_status", FunctionDescriptor.of(JAVA_BYTE, ADDRESS));
        requestFree = bind(ucp, "ucp_request_free", FunctionDescriptor.ofVoid(ADDRESS));
        // In libucs, which libucp links: a library handle's lookup searches its dependencies too.
        statusString = bind(ucp, "ucs_status_string", FunctionDescriptor.of(ADDRESS, JAVA_BYTE));
        epPrintInfo = bind(ucp, "ucp_ep_print_info", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
        SymbolLookup libc = Linker.nativeLinker().defaultLookup();
        // glibc's "FILE *stderr" variable: its address, then the pointer it holds.
        stderrFile = libc.find("stderr")
                .orElseThrow()
                .reinterpret(ADDRESS.byteSize())
                .get(ADDRESS, 0);
        poll = Linker.nativeLinker()
                .downcallHandle(
                        libc.find("poll").orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
        openMemstream = Linker.nativeLinker()
                .downcallHandle(
                        libc.find("open_memstream").orElseThrow(), FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        fclose = Linker.nativeLinker()
                .downcallHandle(libc.find("fclose").orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS));
        free = Linker.nativeLinker()
                .downcallHandle(libc.find("free").orElseThrow(), FunctionDescriptor.ofVoid(ADDRESS));
    }

    private static MethodHandle bind(SymbolLookup lookup, String name, FunctionDescriptor fd) {
        MemorySegment symbol = lookup.find(name)
                .orElseThrow(
                        () -> new UnsatisfiedLinkError(LIBRARY + " has no symbol " + name + " (UCX older than 1.13?)"));
        return Linker.nativeLinker().downcallHandle(symbol, fd);
    }

    /**
     * The bindings of {@code library} ({@value #LIBRARY}, or a path to another libucp), loading it on first call.
     *
     * @throws IllegalArgumentException when the library cannot be loaded ({@code SymbolLookup.libraryLookup}'s dlopen error)
     * @throws UnsatisfiedLinkError when it lacks a function of the 1.13 API
     */
    static synchronized Ucp get(String library) {
        Ucp u = LOADED.get(library);
        if (u != null) return u;
        RuntimeException failed = FAILED.get(library);
        if (failed != null) throw failed;
        try {
            keepJvmSignals();
            // The global arena: libucp stays loaded for the life of the JVM, like any dlopen'ed library.
            u = new Ucp(SymbolLookup.libraryLookup(library, Arena.global()));
            LOADED.put(library, u);
            return u;
        } catch (UnsatisfiedLinkError e) {
            FAILED.put(library, new IllegalArgumentException(e.getMessage(), e));
            throw e;
        } catch (RuntimeException e) {
            FAILED.put(library, e);
            throw e;
        }
    }

    /**
     * libucs installs handlers for SIGSEGV, SIGBUS, SIGILL and SIGFPE when it loads (its crash backtraces),
     * and the JVM raises SIGSEGV on purpose (null checks, safepoints): with UCX's handler in place the JVM
     * dies. UCX reads {@code UCX_ERROR_SIGNALS} from the process environment at load, so it is set empty
     * here first (JUCX does the same), unless the user set it.
     */
    private static void keepJvmSignals() {
        Linker linker = Linker.nativeLinker();
        MethodHandle setenv = linker.downcallHandle(
                linker.defaultLookup().find("setenv").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        try (Arena a = Arena.ofConfined()) {
            int rc = (int) setenv.invokeExact(a.allocateFrom("UCX_ERROR_SIGNALS"), a.allocateFrom(""), 0);
            if (rc != 0) throw new IllegalStateException("setenv(UCX_ERROR_SIGNALS) failed");
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    // ---- typed calls: the handles' exact types, and no checked Throwable for the callers ----------

    byte configRead(MemorySegment configOut) {
        try {
            return (byte) configRead.invokeExact(MemorySegment.NULL, MemorySegment.NULL, configOut);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    void configRelease(MemorySegment config) {
        try {
            configRelease.invokeExact(config);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    byte init(MemorySegment params, MemorySegment config, MemorySegment contextOut) {
        try {
            return (byte) initVersion.invokeExact(UcpAbi.API_MAJOR, UcpAbi.API_MINOR, params, config, contextOut);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    void cleanup(MemorySegment context) {
        try {
            cleanup.invokeExact(context);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    void version(MemorySegment major, MemorySegment minor, MemorySegment release) {
        try {
            getVersion.invokeExact(major, minor, release);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    byte workerCreate(MemorySegment context, MemorySegment params, MemorySegment workerOut) {
        try {
            return (byte) workerCreate.invokeExact(context, params, workerOut);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    void workerDestroy(MemorySegment worker) {
        try {
            workerDestroy.invokeExact(worker);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    byte workerGetAddress(MemorySegment worker, MemorySegment addressOut, MemorySegment lengthOut) {
        try {
            return (byte) workerGetAddress.invokeExact(worker, addressOut, lengthOut);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    void workerReleaseAddress(MemorySegment worker, MemorySegment address) {
        try {
            workerReleaseAddress.invokeExact(worker, address);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    int progress(MemorySegment worker) {
        try {
            return (int) workerProgress.invokeExact(worker);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    byte workerGetEfd(MemorySegment worker, MemorySegment fdOut) {
        try {
            return (byte) workerGetEfd.invokeExact(worker, fdOut);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    byte workerArm(MemorySegment worker) {
        try {
            return (byte) workerArm.invokeExact(worker);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    byte workerSignal(MemorySegment worker) {
        try {
            return (byte) workerSignal.invokeExact(worker);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    MemorySegment flush(MemorySegment worker, MemorySegment param) {
        try {
            return (MemorySegment) workerFlushNbx.invokeExact(worker, param);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    byte fence(MemorySegment worker) {
        try {
            return (byte) workerFence.invokeExact(worker);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    byte epCreate(MemorySegment worker, MemorySegment params, MemorySegment epOut) {
        try {
            return (byte) epCreate.invokeExact(worker, params, epOut);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    MemorySegment epClose(MemorySegment ep, MemorySegment param) {
        try {
            return (MemorySegment) epCloseNbx.invokeExact(ep, param);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    MemorySegment epFlush(MemorySegment ep, MemorySegment param) {
        try {
            return (MemorySegment) epFlushNbx.invokeExact(ep, param);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    MemorySegment tagSend(MemorySegment ep, long buffer, long count, long tag, MemorySegment param) {
        try {
            return (MemorySegment) tagSendNbx.invokeExact(ep, MemorySegment.ofAddress(buffer), count, tag, param);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    MemorySegment tagRecv(MemorySegment worker, long buffer, long count, long tag, long mask, MemorySegment param) {
        try {
            return (MemorySegment)
                    tagRecvNbx.invokeExact(worker, MemorySegment.ofAddress(buffer), count, tag, mask, param);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    void requestCancel(MemorySegment worker, MemorySegment request) {
        try {
            requestCancel.invokeExact(worker, request);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    byte configModify(MemorySegment config, MemorySegment name, MemorySegment value) {
        try {
            return (byte) configModify.invokeExact(config, name, value);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    byte memMap(MemorySegment context, MemorySegment params, MemorySegment memhOut) {
        try {
            return (byte) memMap.invokeExact(context, params, memhOut);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    byte memUnmap(MemorySegment context, MemorySegment memh) {
        try {
            return (byte) memUnmap.invokeExact(context, memh);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    byte rkeyPack(MemorySegment context, MemorySegment memh, MemorySegment bufferOut, MemorySegment sizeOut) {
        try {
            return (byte) rkeyPack.invokeExact(context, memh, bufferOut, sizeOut);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    void rkeyBufferRelease(MemorySegment buffer) {
        try {
            rkeyBufferRelease.invokeExact(buffer);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    byte rkeyUnpack(MemorySegment ep, MemorySegment buffer, MemorySegment rkeyOut) {
        try {
            return (byte) epRkeyUnpack.invokeExact(ep, buffer, rkeyOut);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    void rkeyDestroy(MemorySegment rkey) {
        try {
            rkeyDestroy.invokeExact(rkey);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    MemorySegment put(MemorySegment ep, long buffer, long count, long remote, MemorySegment rkey, MemorySegment param) {
        try {
            return (MemorySegment) putNbx.invokeExact(ep, MemorySegment.ofAddress(buffer), count, remote, rkey, param);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    MemorySegment get(MemorySegment ep, long buffer, long count, long remote, MemorySegment rkey, MemorySegment param) {
        try {
            return (MemorySegment) getNbx.invokeExact(ep, MemorySegment.ofAddress(buffer), count, remote, rkey, param);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    MemorySegment atomic(
            MemorySegment ep, int op, MemorySegment operand, long remote, MemorySegment rkey, MemorySegment param) {
        try {
            return (MemorySegment) atomicOpNbx.invokeExact(ep, op, operand, 1L, remote, rkey, param);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    byte requestStatus(MemorySegment request) {
        try {
            return (byte) requestCheckStatus.invokeExact(request);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    void requestFree(MemorySegment request) {
        try {
            requestFree.invokeExact(request);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    int poll(MemorySegment fds, long count, int timeoutMillis) {
        try {
            return (int) poll.invokeExact(fds, count, timeoutMillis);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    /** {@code ucp_ep_print_info(ep, stderr)}: the endpoint's lanes and the transport of each. */
    void printEpInfo(MemorySegment ep) {
        try {
            epPrintInfo.invokeExact(ep, stderrFile);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    /** What {@code ucp_context_print_info} writes (its transports and memory domains), captured through {@code open_memstream}. */
    String contextInfo(MemorySegment context) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(ADDRESS), size = a.allocate(JAVA_LONG);
            MemorySegment file = (MemorySegment) openMemstream.invokeExact(buf, size);
            if (file.equals(MemorySegment.NULL)) return "";
            contextPrintInfo.invokeExact(context, file);
            int rc = (int) fclose.invokeExact(file); // flushes; buf and size are valid after it
            MemorySegment text = buf.get(ADDRESS, 0);
            String s = text.equals(MemorySegment.NULL)
                    ? ""
                    : text.reinterpret(size.get(JAVA_LONG, 0) + 1).getString(0);
            free.invokeExact(text);
            return rc == 0 ? s : "";
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    /** {@code ucs_status_string}: UCX's own name of a status ("Destination is unreachable"). */
    String statusString(byte status) {
        try {
            MemorySegment s = (MemorySegment) statusString.invokeExact(status);
            return s.equals(MemorySegment.NULL)
                    ? "status " + status
                    : s.reinterpret(256).getString(0);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    private static RuntimeException fail(Throwable t) {
        if (t instanceof RuntimeException r) return r;
        if (t instanceof Error e) throw e;
        return new IllegalStateException("native call failed", t);
    }
}
