package dev.unicomm.backend.ucx.internal;

/**
 * Struct sizes, field offsets and enum values of UCX 1.13's public headers ({@code ucp/api/ucp.h},
 * {@code ucs/type/status.h}) on x86-64 Linux, as the compiler lays them out. {@code UcpAbiTest}
 * compiles a probe against the installed headers and fails if any of these differs.
 */
final class UcpAbi {
    private UcpAbi() {}

    /** {@code ucp_init} is a macro over {@code ucp_init_version(UCP_API_MAJOR, UCP_API_MINOR, ...)}. */
    static final int API_MAJOR = 1, API_MINOR = 13;

    // ucp_params_t
    static final long PARAMS_SIZE = 80, PARAMS_FIELD_MASK = 0, PARAMS_FEATURES = 8, PARAMS_NAME = 72;
    static final long PARAM_FIELD_FEATURES = 1L, PARAM_FIELD_NAME = 1L << 8;
    static final long FEATURE_TAG = 1L, FEATURE_RMA = 1L << 1, FEATURE_AMO64 = 1L << 3, FEATURE_WAKEUP = 1L << 4;

    // ucp_worker_params_t
    static final long WORKER_PARAMS_SIZE = 200, WORKER_PARAMS_FIELD_MASK = 0, WORKER_PARAMS_THREAD_MODE = 8;
    static final long WORKER_PARAM_FIELD_THREAD_MODE = 1L;
    static final int THREAD_MODE_MULTI = 2;

    // ucp_ep_params_t
    static final long EP_PARAMS_SIZE = 104, EP_PARAMS_FIELD_MASK = 0, EP_PARAMS_ADDRESS = 8, EP_PARAMS_ERR_MODE = 16;
    static final long EP_PARAMS_ERR_HANDLER_CB = 24, EP_PARAMS_ERR_HANDLER_ARG = 32; // ucp_err_handler_t { cb; arg; }
    static final long EP_PARAM_FIELD_REMOTE_ADDRESS = 1L,
            EP_PARAM_FIELD_ERR_HANDLING_MODE = 1L << 1,
            EP_PARAM_FIELD_ERR_HANDLER = 1L << 2;
    static final int ERR_HANDLING_MODE_PEER = 1;

    // ucp_mem_map_params_t
    static final long MEM_MAP_PARAMS_SIZE = 40, MEM_MAP_FIELD_MASK = 0, MEM_MAP_ADDRESS = 8, MEM_MAP_LENGTH = 16;
    static final long MEM_MAP_PARAM_FIELD_ADDRESS = 1L, MEM_MAP_PARAM_FIELD_LENGTH = 1L << 1;

    // ucp_request_param_t
    static final long REQUEST_PARAM_SIZE = 72,
            REQ_OP_ATTR_MASK = 0,
            REQ_FLAGS = 4,
            REQ_CB = 16,
            REQ_DATATYPE = 24,
            REQ_USER_DATA = 32,
            REQ_REPLY_BUFFER = 40,
            REQ_RECV_INFO = 56;
    static final int OP_ATTR_FIELD_CALLBACK = 1 << 1,
            OP_ATTR_FIELD_USER_DATA = 1 << 2,
            OP_ATTR_FIELD_DATATYPE = 1 << 3,
            OP_ATTR_FIELD_FLAGS = 1 << 4,
            OP_ATTR_FIELD_REPLY_BUFFER = 1 << 5,
            OP_ATTR_FIELD_RECV_INFO = 1 << 7;
    // ucp_tag_recv_info_t { ucp_tag_t sender_tag; size_t length; }
    static final long TAG_RECV_INFO_SIZE = 16, TAG_RECV_INFO_TAG = 0, TAG_RECV_INFO_LENGTH = 8;
    static final int EP_CLOSE_FLAG_FORCE = 1;
    /** {@code ucp_dt_make_contig(8)}: {@code (8 << UCP_DATATYPE_SHIFT) | UCP_DATATYPE_CONTIG}. */
    static final long DATATYPE_CONTIG_8 = 8L << 3;

    // ucp_atomic_op_t
    static final int ATOMIC_OP_ADD = 0, ATOMIC_OP_SWAP = 1, ATOMIC_OP_CSWAP = 2;

    // ucs_status_t (an int8_t-sized enum)
    static final byte OK = 0, INPROGRESS = 1, ERR_BUSY = -15;
    /** {@code UCS_ERR_LAST}: a status pointer at or above {@code (uintptr_t) -100} is an error code. */
    static final long ERR_LAST = -100;

    /** {@code UCS_PTR_IS_ERR}: {@code (uintptr_t) ptr >= (uintptr_t) UCS_ERR_LAST}. */
    static boolean isError(long statusPtr) {
        return Long.compareUnsigned(statusPtr, ERR_LAST) >= 0;
    }

    /** {@code UCS_PTR_STATUS}: {@code (ucs_status_t) (intptr_t) ptr}. */
    static byte status(long statusPtr) {
        return (byte) statusPtr;
    }
}
