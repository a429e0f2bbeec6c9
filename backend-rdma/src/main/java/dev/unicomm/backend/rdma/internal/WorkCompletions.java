package dev.unicomm.backend.rdma.internal;

/** Field access to the shim's polled completions and the names of verbs' completion statuses. */
public final class WorkCompletions {
    private WorkCompletions() {}

    public static final int SUCCESS = 0;
    public static final int WR_FLUSH_ERR = 5;
    /** {@code ibv_wc_opcode}: receive completions have bit 7 set. */
    public static final int OPCODE_RECV = 128;

    public static final int OPCODE_RECV_RDMA_WITH_IMM = 129;

    private static final String[] STATUS = {
        "SUCCESS",
        "LOC_LEN_ERR",
        "LOC_QP_OP_ERR",
        "LOC_EEC_OP_ERR",
        "LOC_PROT_ERR",
        "WR_FLUSH_ERR",
        "MW_BIND_ERR",
        "BAD_RESP_ERR",
        "LOC_ACCESS_ERR",
        "REM_INV_REQ_ERR",
        "REM_ACCESS_ERR",
        "REM_OP_ERR",
        "RETRY_EXC_ERR",
        "RNR_RETRY_EXC_ERR",
        "LOC_RDD_VIOL_ERR",
        "REM_INV_RD_REQ_ERR",
        "REM_ABORT_ERR",
        "INV_EECN_ERR",
        "INV_EEC_STATE_ERR",
        "FATAL_ERR",
        "RESP_TIMEOUT_ERR",
        "GENERAL_ERR",
        "TM_ERR",
        "TM_RNDV_INCOMPLETE",
    };

    public static long wrId(long[] wc, int i) {
        return wc[i * CompletionQueue.WC_LONGS];
    }

    public static int status(long[] wc, int i) {
        return (int) wc[i * CompletionQueue.WC_LONGS + 1];
    }

    public static int opcode(long[] wc, int i) {
        return (int) wc[i * CompletionQueue.WC_LONGS + 2];
    }

    public static long byteLen(long[] wc, int i) {
        return wc[i * CompletionQueue.WC_LONGS + 3] & 0xffffffffL;
    }

    public static boolean hasImm(long[] wc, int i) {
        return wc[i * CompletionQueue.WC_LONGS + 4] != 0;
    }

    public static int imm(long[] wc, int i) {
        return (int) wc[i * CompletionQueue.WC_LONGS + 5];
    }

    public static int vendorErr(long[] wc, int i) {
        return (int) wc[i * CompletionQueue.WC_LONGS + 6];
    }

    /** {@code IBV_WC_<NAME>} of a status code. */
    public static String statusName(int status) {
        return "IBV_WC_" + (status >= 0 && status < STATUS.length ? STATUS[status] : "STATUS_" + status);
    }

    /** What a failed completion means, for the exception message. */
    public static String hint(int status) {
        return switch (status) {
            case 10 -> "the peer refused access: the remote range or key is not valid for this operation";
            case 12 -> "the peer did not answer (it is gone, its queue pair was destroyed, or the network is down)";
            case 13 -> "the peer never posted a receive";
            case 4, 8 -> "the local buffer is not (or no longer) registered";
            case 5 -> "flushed: the connection broke on an earlier error";
            default -> "the connection is broken";
        };
    }
}
