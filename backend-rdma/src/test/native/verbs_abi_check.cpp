// Compile-time check that ucv_verbs_abi.h (our declarations of the verbs ABI) matches rdma-core's
// <infiniband/verbs.h>: every field the shim touches at the same offset, every struct the provider
// writes arrays of at the same size, every constant the same value. Compiled by VerbsAbiCheckTest
// wherever the real header is installed; it produces no object, only errors.
#include <infiniband/verbs.h>
#include "ucv_verbs_abi.h"

#define SAME_OFFSET(ours, theirs, field) \
    static_assert(offsetof(vabi::ours, field) == offsetof(struct theirs, field), #ours "." #field " is misplaced")
#define SAME_SIZE(ours, theirs) static_assert(sizeof(vabi::ours) == sizeof(struct theirs), #ours " has the wrong size")
#define SAME_VALUE(ours, theirs) static_assert((long long) vabi::ours == (long long) theirs, #ours " has the wrong value")

SAME_OFFSET(ContextOps, ibv_context_ops, poll_cq);
SAME_OFFSET(ContextOps, ibv_context_ops, req_notify_cq);
SAME_OFFSET(ContextOps, ibv_context_ops, post_send);
SAME_OFFSET(ContextOps, ibv_context_ops, post_recv);
SAME_SIZE(ContextOps, ibv_context_ops);
SAME_OFFSET(Context, ibv_context, ops);
SAME_OFFSET(Context, ibv_context, abi_compat);
SAME_SIZE(Context, ibv_context);
static_assert(sizeof(vabi::ExtendedContextTail) - offsetof(vabi::ExtendedContextTail, query_port)
              == sizeof(struct verbs_context) - offsetof(struct verbs_context, query_port),
              "query_port is at the wrong distance from the end of the extended context");
static_assert(offsetof(vabi::ExtendedContextTail, context) - offsetof(vabi::ExtendedContextTail, size)
              == offsetof(struct verbs_context, context) - offsetof(struct verbs_context, sz),
              "the extended context's size word is misplaced");
SAME_OFFSET(CompChannel, ibv_comp_channel, fd);
SAME_OFFSET(Cq, ibv_cq, context);
SAME_OFFSET(Qp, ibv_qp, context);
SAME_OFFSET(Qp, ibv_qp, qp_num);
SAME_OFFSET(Mr, ibv_mr, lkey);
SAME_OFFSET(Mr, ibv_mr, rkey);

SAME_OFFSET(DeviceAttr, ibv_device_attr, max_mr_size);
SAME_OFFSET(DeviceAttr, ibv_device_attr, max_qp_wr);
SAME_OFFSET(DeviceAttr, ibv_device_attr, max_sge);
SAME_OFFSET(DeviceAttr, ibv_device_attr, max_cqe);
SAME_OFFSET(DeviceAttr, ibv_device_attr, max_qp_rd_atom);
SAME_OFFSET(DeviceAttr, ibv_device_attr, max_qp_init_rd_atom);
SAME_OFFSET(DeviceAttr, ibv_device_attr, atomic_cap);
SAME_OFFSET(DeviceAttr, ibv_device_attr, phys_port_cnt);
SAME_SIZE(DeviceAttr, ibv_device_attr);

SAME_OFFSET(PortAttr, ibv_port_attr, state);
SAME_OFFSET(PortAttr, ibv_port_attr, active_mtu);
SAME_OFFSET(PortAttr, ibv_port_attr, gid_tbl_len);
SAME_OFFSET(PortAttr, ibv_port_attr, max_msg_sz);
SAME_OFFSET(PortAttr, ibv_port_attr, lid);
SAME_OFFSET(PortAttr, ibv_port_attr, link_layer);
static_assert(sizeof(vabi::PortAttr) <= sizeof(struct ibv_port_attr), "PortAttr is longer than the library's");
static_assert(sizeof(vabi::Gid) == sizeof(union ibv_gid), "Gid has the wrong size");

SAME_OFFSET(AhAttr, ibv_ah_attr, grh);
SAME_OFFSET(AhAttr, ibv_ah_attr, dlid);
SAME_OFFSET(AhAttr, ibv_ah_attr, sl);
SAME_OFFSET(AhAttr, ibv_ah_attr, is_global);
SAME_OFFSET(AhAttr, ibv_ah_attr, port_num);
SAME_OFFSET(GlobalRoute, ibv_global_route, sgid_index);
SAME_OFFSET(GlobalRoute, ibv_global_route, hop_limit);
SAME_OFFSET(QpInitAttr, ibv_qp_init_attr, send_cq);
SAME_OFFSET(QpInitAttr, ibv_qp_init_attr, recv_cq);
SAME_OFFSET(QpInitAttr, ibv_qp_init_attr, cap);
SAME_OFFSET(QpInitAttr, ibv_qp_init_attr, qp_type);
SAME_OFFSET(QpInitAttr, ibv_qp_init_attr, sq_sig_all);
SAME_SIZE(QpInitAttr, ibv_qp_init_attr);
SAME_OFFSET(QpAttr, ibv_qp_attr, qp_state);
SAME_OFFSET(QpAttr, ibv_qp_attr, path_mtu);
SAME_OFFSET(QpAttr, ibv_qp_attr, rq_psn);
SAME_OFFSET(QpAttr, ibv_qp_attr, sq_psn);
SAME_OFFSET(QpAttr, ibv_qp_attr, dest_qp_num);
SAME_OFFSET(QpAttr, ibv_qp_attr, qp_access_flags);
SAME_OFFSET(QpAttr, ibv_qp_attr, ah_attr);
SAME_OFFSET(QpAttr, ibv_qp_attr, pkey_index);
SAME_OFFSET(QpAttr, ibv_qp_attr, max_rd_atomic);
SAME_OFFSET(QpAttr, ibv_qp_attr, max_dest_rd_atomic);
SAME_OFFSET(QpAttr, ibv_qp_attr, min_rnr_timer);
SAME_OFFSET(QpAttr, ibv_qp_attr, port_num);
SAME_OFFSET(QpAttr, ibv_qp_attr, timeout);
SAME_OFFSET(QpAttr, ibv_qp_attr, retry_cnt);
SAME_OFFSET(QpAttr, ibv_qp_attr, rnr_retry);
SAME_SIZE(QpAttr, ibv_qp_attr);

SAME_SIZE(Sge, ibv_sge);
SAME_OFFSET(Sge, ibv_sge, lkey);
SAME_OFFSET(SendWr, ibv_send_wr, next);
SAME_OFFSET(SendWr, ibv_send_wr, sg_list);
SAME_OFFSET(SendWr, ibv_send_wr, num_sge);
SAME_OFFSET(SendWr, ibv_send_wr, opcode);
SAME_OFFSET(SendWr, ibv_send_wr, send_flags);
SAME_OFFSET(SendWr, ibv_send_wr, imm_data);
SAME_OFFSET(SendWr, ibv_send_wr, wr.rdma.remote_addr);
SAME_OFFSET(SendWr, ibv_send_wr, wr.rdma.rkey);
SAME_OFFSET(SendWr, ibv_send_wr, wr.atomic.remote_addr);
SAME_OFFSET(SendWr, ibv_send_wr, wr.atomic.compare_add);
SAME_OFFSET(SendWr, ibv_send_wr, wr.atomic.swap);
SAME_OFFSET(SendWr, ibv_send_wr, wr.atomic.rkey);
SAME_SIZE(SendWr, ibv_send_wr);
SAME_OFFSET(RecvWr, ibv_recv_wr, sg_list);
SAME_OFFSET(RecvWr, ibv_recv_wr, num_sge);
SAME_SIZE(RecvWr, ibv_recv_wr);
SAME_OFFSET(Wc, ibv_wc, status);
SAME_OFFSET(Wc, ibv_wc, opcode);
SAME_OFFSET(Wc, ibv_wc, vendor_err);
SAME_OFFSET(Wc, ibv_wc, byte_len);
SAME_OFFSET(Wc, ibv_wc, imm_data);
SAME_OFFSET(Wc, ibv_wc, qp_num);
SAME_OFFSET(Wc, ibv_wc, wc_flags);
SAME_SIZE(Wc, ibv_wc);

SAME_VALUE(QPT_RC, IBV_QPT_RC);
SAME_VALUE(QPS_INIT, IBV_QPS_INIT);
SAME_VALUE(QPS_RTR, IBV_QPS_RTR);
SAME_VALUE(QPS_RTS, IBV_QPS_RTS);
SAME_VALUE(ACCESS_LOCAL_WRITE, IBV_ACCESS_LOCAL_WRITE);
SAME_VALUE(ACCESS_REMOTE_WRITE, IBV_ACCESS_REMOTE_WRITE);
SAME_VALUE(ACCESS_REMOTE_READ, IBV_ACCESS_REMOTE_READ);
SAME_VALUE(ACCESS_REMOTE_ATOMIC, IBV_ACCESS_REMOTE_ATOMIC);
SAME_VALUE(QP_STATE, IBV_QP_STATE);
SAME_VALUE(QP_ACCESS_FLAGS, IBV_QP_ACCESS_FLAGS);
SAME_VALUE(QP_PKEY_INDEX, IBV_QP_PKEY_INDEX);
SAME_VALUE(QP_PORT, IBV_QP_PORT);
SAME_VALUE(QP_AV, IBV_QP_AV);
SAME_VALUE(QP_PATH_MTU, IBV_QP_PATH_MTU);
SAME_VALUE(QP_TIMEOUT, IBV_QP_TIMEOUT);
SAME_VALUE(QP_RETRY_CNT, IBV_QP_RETRY_CNT);
SAME_VALUE(QP_RNR_RETRY, IBV_QP_RNR_RETRY);
SAME_VALUE(QP_RQ_PSN, IBV_QP_RQ_PSN);
SAME_VALUE(QP_MAX_QP_RD_ATOMIC, IBV_QP_MAX_QP_RD_ATOMIC);
SAME_VALUE(QP_MIN_RNR_TIMER, IBV_QP_MIN_RNR_TIMER);
SAME_VALUE(QP_SQ_PSN, IBV_QP_SQ_PSN);
SAME_VALUE(QP_MAX_DEST_RD_ATOMIC, IBV_QP_MAX_DEST_RD_ATOMIC);
SAME_VALUE(QP_DEST_QPN, IBV_QP_DEST_QPN);
SAME_VALUE(WR_RDMA_WRITE, IBV_WR_RDMA_WRITE);
SAME_VALUE(WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_WRITE_WITH_IMM);
SAME_VALUE(WR_SEND, IBV_WR_SEND);
SAME_VALUE(WR_RDMA_READ, IBV_WR_RDMA_READ);
SAME_VALUE(WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_CMP_AND_SWP);
SAME_VALUE(WR_ATOMIC_FETCH_AND_ADD, IBV_WR_ATOMIC_FETCH_AND_ADD);
SAME_VALUE(SEND_SIGNALED, IBV_SEND_SIGNALED);
SAME_VALUE(WC_WITH_IMM, IBV_WC_WITH_IMM);
