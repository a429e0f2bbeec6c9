// The part of libibverbs' binary interface that ucv_shim.cpp uses, declared here so that the shim
// builds on machines without rdma-core's headers (libibverbs-dev). libibverbs is dlopen()ed at run
// time, so only these layouts and constants matter, and they are the frozen IBVERBS_1.1 ABI that
// every provider still implements. Field order and sizes follow the x86-64 layout of rdma-core's
// <infiniband/verbs.h>; src/test/native/verbs_abi_check.cpp compares every offset used here with the
// real header wherever it is installed (CI installs it), so a mismatch fails the build there.
#ifndef UCV_VERBS_ABI_H
#define UCV_VERBS_ABI_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

namespace vabi {

// ---- constants (values of the enums in verbs.h) ----
enum : int { QPT_RC = 2 };
enum : int { QPS_INIT = 1, QPS_RTR = 2, QPS_RTS = 3 };
enum : int { ACCESS_LOCAL_WRITE = 1, ACCESS_REMOTE_WRITE = 2, ACCESS_REMOTE_READ = 4, ACCESS_REMOTE_ATOMIC = 8 };
enum : int {
    QP_STATE = 1 << 0, QP_ACCESS_FLAGS = 1 << 3, QP_PKEY_INDEX = 1 << 4, QP_PORT = 1 << 5, QP_AV = 1 << 7,
    QP_PATH_MTU = 1 << 8, QP_TIMEOUT = 1 << 9, QP_RETRY_CNT = 1 << 10, QP_RNR_RETRY = 1 << 11,
    QP_RQ_PSN = 1 << 12, QP_MAX_QP_RD_ATOMIC = 1 << 13, QP_MIN_RNR_TIMER = 1 << 15, QP_SQ_PSN = 1 << 16,
    QP_MAX_DEST_RD_ATOMIC = 1 << 17, QP_DEST_QPN = 1 << 20
};
enum : int {
    WR_RDMA_WRITE = 0, WR_RDMA_WRITE_WITH_IMM = 1, WR_SEND = 2, WR_RDMA_READ = 4,
    WR_ATOMIC_CMP_AND_SWP = 5, WR_ATOMIC_FETCH_AND_ADD = 6
};
enum : unsigned { SEND_SIGNALED = 1u << 1 };
enum : unsigned { WC_WITH_IMM = 1u << 1 };

// ---- opaque objects the shim only passes back ----
struct Device;
struct Pd;
struct Srq;

struct Cq;
struct Qp;
struct Sge;
struct SendWr;
struct RecvWr;
struct Wc;
struct PortAttr;

// The provider's function table inside every context. Only the four data-path entries that verbs.h
// calls inline are named; the rest keep their slots.
struct ContextOps {
    void* before_poll_cq[11];
    int (*poll_cq)(Cq* cq, int num_entries, Wc* wc);
    int (*req_notify_cq)(Cq* cq, int solicited_only);
    void* before_post_send[12];
    int (*post_send)(Qp* qp, SendWr* wr, SendWr** bad_wr);
    int (*post_recv)(Qp* qp, RecvWr* wr, RecvWr** bad_wr);
    void* after_post_recv[5];
};

struct Context {
    Device* device;
    ContextOps ops;
    int cmd_fd;
    int async_fd;
    int num_comp_vectors;
    pthread_mutex_t mutex;
    void* abi_compat;  // all ones when this context is the tail of an extended context (below)
};

// An extended context ends with the plain one; its table "grows up", so the distance of each entry
// from the end never changes. query_port has 38 pointer-sized entries between it and `size`.
struct ExtendedContextTail {
    int (*query_port)(Context* ctx, uint8_t port, PortAttr* attr, size_t attr_len);
    void* entries_after_query_port[38];
    size_t size;  // sizeof the whole extended context as the library built it
    Context context;
};

struct CompChannel {
    Context* context;
    int fd;
    int refcnt;
};

struct Cq {
    Context* context;
    CompChannel* channel;
    void* cq_context;
    uint32_t handle;
    int cqe;
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    uint32_t comp_events_completed;
    uint32_t async_events_completed;
};

struct Qp {
    Context* context;
    void* qp_context;
    Pd* pd;
    Cq* send_cq;
    Cq* recv_cq;
    Srq* srq;
    uint32_t handle;
    uint32_t qp_num;
    int state;
    int qp_type;
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    uint32_t events_completed;
};

struct Mr {
    Context* context;
    Pd* pd;
    void* addr;
    size_t length;
    uint32_t handle;
    uint32_t lkey;
    uint32_t rkey;
};

struct DeviceAttr {
    char fw_ver[64];
    uint64_t node_guid;
    uint64_t sys_image_guid;
    uint64_t max_mr_size;
    uint64_t page_size_cap;
    uint32_t vendor_id;
    uint32_t vendor_part_id;
    uint32_t hw_ver;
    int max_qp;
    int max_qp_wr;
    unsigned device_cap_flags;
    int max_sge;
    int max_sge_rd;
    int max_cq;
    int max_cqe;
    int max_mr;
    int max_pd;
    int max_qp_rd_atom;
    int max_ee_rd_atom;
    int max_res_rd_atom;
    int max_qp_init_rd_atom;
    int max_ee_init_rd_atom;
    int atomic_cap;
    int more_limits[14];  // max_ee .. max_srq_sge: not used here
    uint16_t max_pkeys;
    uint8_t local_ca_ack_delay;
    uint8_t phys_port_cnt;
};

struct PortAttr {
    int state;
    int max_mtu;
    int active_mtu;
    int gid_tbl_len;
    uint32_t port_cap_flags;
    uint32_t max_msg_sz;
    uint32_t bad_pkey_cntr;
    uint32_t qkey_viol_cntr;
    uint16_t pkey_tbl_len;
    uint16_t lid;
    uint16_t sm_lid;
    uint8_t lmc;
    uint8_t max_vl_num;
    uint8_t sm_sl;
    uint8_t subnet_timeout;
    uint8_t init_type_reply;
    uint8_t active_width;
    uint8_t active_speed;
    uint8_t phys_state;
    uint8_t link_layer;
    uint8_t flags;
    uint16_t port_cap_flags2;  // newer rdma-core appends fields; its query_port copies what we ask for
};

union Gid {
    uint8_t raw[16];
    uint64_t halves[2];
};

struct GlobalRoute {
    Gid dgid;
    uint32_t flow_label;
    uint8_t sgid_index;
    uint8_t hop_limit;
    uint8_t traffic_class;
};

struct AhAttr {
    GlobalRoute grh;
    uint16_t dlid;
    uint8_t sl;
    uint8_t src_path_bits;
    uint8_t static_rate;
    uint8_t is_global;
    uint8_t port_num;
};

struct QpCap {
    uint32_t max_send_wr;
    uint32_t max_recv_wr;
    uint32_t max_send_sge;
    uint32_t max_recv_sge;
    uint32_t max_inline_data;
};

struct QpInitAttr {
    void* qp_context;
    Cq* send_cq;
    Cq* recv_cq;
    Srq* srq;
    QpCap cap;
    int qp_type;
    int sq_sig_all;
};

struct QpAttr {
    int qp_state;
    int cur_qp_state;
    int path_mtu;
    int path_mig_state;
    uint32_t qkey;
    uint32_t rq_psn;
    uint32_t sq_psn;
    uint32_t dest_qp_num;
    unsigned qp_access_flags;
    QpCap cap;
    AhAttr ah_attr;
    AhAttr alt_ah_attr;
    uint16_t pkey_index;
    uint16_t alt_pkey_index;
    uint8_t en_sqd_async_notify;
    uint8_t sq_draining;
    uint8_t max_rd_atomic;
    uint8_t max_dest_rd_atomic;
    uint8_t min_rnr_timer;
    uint8_t port_num;
    uint8_t timeout;
    uint8_t retry_cnt;
    uint8_t rnr_retry;
    uint8_t alt_port_num;
    uint8_t alt_timeout;
    uint32_t rate_limit;
};

struct Sge {
    uint64_t addr;
    uint32_t length;
    uint32_t lkey;
};

struct SendWr {
    uint64_t wr_id;
    SendWr* next;
    Sge* sg_list;
    int num_sge;
    int opcode;
    unsigned send_flags;
    uint32_t imm_data;  // network byte order
    union {
        struct { uint64_t remote_addr; uint32_t rkey; } rdma;
        struct { uint64_t remote_addr; uint64_t compare_add; uint64_t swap; uint32_t rkey; } atomic;
        struct { void* ah; uint32_t remote_qpn; uint32_t remote_qkey; } ud;
    } wr;
    uint32_t xrc_remote_srqn;
    uint64_t bind_mw_or_tso[6];  // memory-window binding / TSO header: not used here
};

struct RecvWr {
    uint64_t wr_id;
    RecvWr* next;
    Sge* sg_list;
    int num_sge;
};

struct Wc {
    uint64_t wr_id;
    int status;
    int opcode;
    uint32_t vendor_err;
    uint32_t byte_len;
    uint32_t imm_data;  // network byte order
    uint32_t qp_num;
    uint32_t src_qp;
    unsigned wc_flags;
    uint16_t pkey_index;
    uint16_t slid;
    uint8_t sl;
    uint8_t dlid_path_bits;
};

// verbs.h's inline helpers, which go through the provider's table rather than exported symbols.
inline int poll_cq(Cq* cq, int n, Wc* wc) { return cq->context->ops.poll_cq(cq, n, wc); }
inline int req_notify_cq(Cq* cq, int solicited_only) { return cq->context->ops.req_notify_cq(cq, solicited_only); }
inline int post_send(Qp* qp, SendWr* wr, SendWr** bad) { return qp->context->ops.post_send(qp, wr, bad); }
inline int post_recv(Qp* qp, RecvWr* wr, RecvWr** bad) { return qp->context->ops.post_recv(qp, wr, bad); }

// The provider's extended query_port, or null where the context is not extended or predates it
// (then the exported ibv_query_port is used, as verbs.h does).
inline ExtendedContextTail* extended_with_query_port(Context* ctx) {
    if (ctx->abi_compat != reinterpret_cast<void*>(UINTPTR_MAX)) return nullptr;
    auto* ext = reinterpret_cast<ExtendedContextTail*>(reinterpret_cast<char*>(ctx) - offsetof(ExtendedContextTail, context));
    size_t needed = sizeof(ExtendedContextTail) - offsetof(ExtendedContextTail, query_port);
    return ext->size >= needed && ext->query_port ? ext : nullptr;
}

}  // namespace vabi

#endif
