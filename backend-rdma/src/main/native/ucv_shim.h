/*
 * unicomm's verbs shim: a few coarse C functions over libibverbs, which the shim loads with
 * dlopen on first use. Only plain integers cross this boundary (handles are pointers cast to
 * long long), so the JavaCPP binding stays trivial and the JNI library links nothing but libc.
 * Every function returning int uses 0 (or a count) for success and a negative value for failure;
 * ucv_last_error() then has the failing call and its errno text.
 */
#ifndef UCV_SHIM_H
#define UCV_SHIM_H

#ifdef __cplusplus
extern "C" {
#endif

/* Loads libibverbs (path NULL or "" = "libibverbs.so.1") and resolves its symbols. */
int ucv_load(const char* path, char* err, int errlen);
/* Copies this thread's last error text into buf (NUL-terminated); returns its length. */
int ucv_last_error(char* buf, int len);

/* Number of verbs devices, or < 0. */
int ucv_device_count(void);
/* Name of device index into buf. */
int ucv_device_name(int index, char* buf, int len);

/* Opens a device by name and allocates its protection domain; 0 on failure. */
long long ucv_open(const char* name);
void ucv_close(long long ctx);
/* out[0..7] = phys_port_cnt, max_qp_wr, max_cqe, max_qp_rd_atom, max_qp_init_rd_atom, atomic_cap, max_mr_size, max_sge */
int ucv_device_attr(long long ctx, long long* out);
/* out[0..5] = state, active_mtu (enum 1..5), lid, link_layer (1 IB, 2 Ethernet), gid_tbl_len, max_msg_sz */
int ucv_port_attr(long long ctx, int port, long long* out);
/* out[0] = GID bytes 0..7, out[1] = bytes 8..15 (big-endian) */
int ucv_gid(long long ctx, int port, int index, long long* out);

/* A completion queue with cqe entries; with_events adds a completion channel for ucv_cq_wait. */
long long ucv_cq_create(long long ctx, int cqe, int with_events);
void ucv_cq_destroy(long long cq);
/* Polls up to max completions into out (UCV_WC_LONGS longs each); returns the count or < 0. */
int ucv_cq_poll(long long cq, int max, long long* out);
/* Requests an event for the next completion. */
int ucv_cq_arm(long long cq);
/* Waits up to timeout_ms for a completion event: 1 = event (consumed), 0 = timeout, < 0 = error. */
int ucv_cq_wait(long long cq, int timeout_ms);

/* An RC queue pair on cq (send and receive side) in state RESET->INIT is done by ucv_qp_connect. */
long long ucv_qp_create(long long ctx, long long cq, int max_send_wr, int max_recv_wr);
void ucv_qp_destroy(long long qp);
int ucv_qp_num(long long qp);
/* INIT -> RTR -> RTS towards the remote QP; gid_index < 0 means no GRH (InfiniBand by LID). */
int ucv_qp_connect(long long qp, int port, int gid_index, int mtu_enum, int remote_qpn, int remote_psn,
                   int remote_lid, long long remote_gid_hi, long long remote_gid_lo, int local_psn,
                   int rd_atomic, int timeout, int retry_cnt);

/* Registers [addr, addr+len) with access flags (ibv_access_flags); 0 on failure. */
long long ucv_mr_reg(long long ctx, long long addr, long long len, int access);
int ucv_mr_lkey(long long mr);
int ucv_mr_rkey(long long mr);
int ucv_mr_dereg(long long mr);

/*
 * Posts count chained RDMA work requests of one opcode (0 WRITE, 1 WRITE_WITH_IMM, 2 READ), each
 * of length bytes from local_addrs[i] (lkey) to remote_addrs[i] (rkey), all with wr_id. Only the
 * last one is signaled when signal_last != 0, else all are.
 */
int ucv_post_rdma(long long qp, int opcode, long long wr_id, int count, long long* local_addrs, int lkey,
                  long long* remote_addrs, int rkey, int length, int imm, int signal_last);
/* One signaled SEND of len bytes at addr. */
int ucv_post_send(long long qp, long long wr_id, long long addr, int len, int lkey);
/* One signaled 64-bit atomic (0 FETCH_AND_ADD, 1 COMPARE_AND_SWAP); the old value lands at local_addr. */
int ucv_post_atomic(long long qp, long long wr_id, long long local_addr, int lkey, long long remote_addr, int rkey,
                    int opcode, long long compare_add, long long swap);
/* One receive of up to len bytes into addr. */
int ucv_post_recv(long long qp, long long wr_id, long long addr, int len, int lkey);

#ifdef __cplusplus
}
#endif

/* Longs per polled completion: wr_id, status, opcode, byte_len, has_imm, imm, vendor_err, qp_num */
#define UCV_WC_LONGS 8

#endif
