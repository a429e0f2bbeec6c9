// Implementation of ucv_shim.h. libibverbs is opened with dlopen and every exported verbs function
// is called through a pointer from dlsym, so this file links only libc and the JVM can load it on
// machines without rdma-core. The verbs types come from ucv_verbs_abi.h (our own declarations of
// the stable ABI), so it also builds without rdma-core's headers; the data-path calls that verbs.h
// makes inline (post_send, post_recv, poll_cq, req_notify_cq) go through the provider's table.
#include "ucv_shim.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ucv_verbs_abi.h"

namespace {

thread_local char g_err[512];

void set_err(const char* call, int err) {
    snprintf(g_err, sizeof g_err, "%s: %s (errno %d)", call, err ? strerror(err) : "failed", err);
}

struct Fns {
    vabi::Device** (*get_device_list)(int*);
    void (*free_device_list)(vabi::Device**);
    const char* (*get_device_name)(vabi::Device*);
    vabi::Context* (*open_device)(vabi::Device*);
    int (*close_device)(vabi::Context*);
    int (*query_device)(vabi::Context*, vabi::DeviceAttr*);
    int (*query_port)(vabi::Context*, uint8_t, vabi::PortAttr*);
    int (*query_gid)(vabi::Context*, uint8_t, int, vabi::Gid*);
    vabi::Pd* (*alloc_pd)(vabi::Context*);
    int (*dealloc_pd)(vabi::Pd*);
    vabi::Mr* (*reg_mr)(vabi::Pd*, void*, size_t, int);
    int (*dereg_mr)(vabi::Mr*);
    vabi::CompChannel* (*create_comp_channel)(vabi::Context*);
    int (*destroy_comp_channel)(vabi::CompChannel*);
    vabi::Cq* (*create_cq)(vabi::Context*, int, void*, vabi::CompChannel*, int);
    int (*destroy_cq)(vabi::Cq*);
    int (*get_cq_event)(vabi::CompChannel*, vabi::Cq**, void**);
    void (*ack_cq_events)(vabi::Cq*, unsigned int);
    vabi::Qp* (*create_qp)(vabi::Pd*, vabi::QpInitAttr*);
    int (*modify_qp)(vabi::Qp*, vabi::QpAttr*, int);
    int (*destroy_qp)(vabi::Qp*);
};

Fns f;
void* g_lib = nullptr;

struct Ctx { vabi::Context* ctx; vabi::Pd* pd; };
struct Cq { vabi::Cq* cq; vabi::CompChannel* ch; };

template <typename T> T* as(long long h) { return reinterpret_cast<T*>(static_cast<intptr_t>(h)); }
template <typename T> long long handle(T* p) { return static_cast<long long>(reinterpret_cast<intptr_t>(p)); }

bool loaded() {
    if (g_lib) return true;
    snprintf(g_err, sizeof g_err, "libibverbs is not loaded (ucv_load was not called or failed)");
    return false;
}

}  // namespace

extern "C" {

int ucv_load(const char* path, char* err, int errlen) {
    if (g_lib) return 0;
    const char* p = (path && *path) ? path : "libibverbs.so.1";
    void* lib = dlopen(p, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(err, errlen, "%s", dlerror());
        return -1;
    }
    struct { const char* name; void** slot; } syms[] = {
        {"ibv_get_device_list", (void**) &f.get_device_list},
        {"ibv_free_device_list", (void**) &f.free_device_list},
        {"ibv_get_device_name", (void**) &f.get_device_name},
        {"ibv_open_device", (void**) &f.open_device},
        {"ibv_close_device", (void**) &f.close_device},
        {"ibv_query_device", (void**) &f.query_device},
        {"ibv_query_port", (void**) &f.query_port},
        {"ibv_query_gid", (void**) &f.query_gid},
        {"ibv_alloc_pd", (void**) &f.alloc_pd},
        {"ibv_dealloc_pd", (void**) &f.dealloc_pd},
        {"ibv_reg_mr", (void**) &f.reg_mr},
        {"ibv_dereg_mr", (void**) &f.dereg_mr},
        {"ibv_create_comp_channel", (void**) &f.create_comp_channel},
        {"ibv_destroy_comp_channel", (void**) &f.destroy_comp_channel},
        {"ibv_create_cq", (void**) &f.create_cq},
        {"ibv_destroy_cq", (void**) &f.destroy_cq},
        {"ibv_get_cq_event", (void**) &f.get_cq_event},
        {"ibv_ack_cq_events", (void**) &f.ack_cq_events},
        {"ibv_create_qp", (void**) &f.create_qp},
        {"ibv_modify_qp", (void**) &f.modify_qp},
        {"ibv_destroy_qp", (void**) &f.destroy_qp},
    };
    for (auto& s : syms) {
        *s.slot = dlsym(lib, s.name);
        if (!*s.slot) {
            snprintf(err, errlen, "%s: symbol %s not found (rdma-core too old?)", p, s.name);
            dlclose(lib);
            return -2;
        }
    }
    g_lib = lib;
    return 0;
}

int ucv_last_error(char* buf, int len) {
    if (len <= 0) return 0;
    snprintf(buf, len, "%s", g_err);
    return (int) strlen(buf);
}

int ucv_device_count(void) {
    if (!loaded()) return -1;
    int n = 0;
    errno = 0;
    vabi::Device** list = f.get_device_list(&n);
    if (!list) {
        // ENOSYS: no kernel support (no ib_uverbs); report it as an error with its text.
        set_err("ibv_get_device_list", errno);
        return -1;
    }
    f.free_device_list(list);
    return n;
}

int ucv_device_name(int index, char* buf, int len) {
    if (!loaded()) return -1;
    int n = 0;
    vabi::Device** list = f.get_device_list(&n);
    if (!list) { set_err("ibv_get_device_list", errno); return -1; }
    int rc = -1;
    if (index >= 0 && index < n) {
        snprintf(buf, len, "%s", f.get_device_name(list[index]));
        rc = 0;
    } else {
        snprintf(g_err, sizeof g_err, "device index %d out of range (%d devices)", index, n);
    }
    f.free_device_list(list);
    return rc;
}

long long ucv_open(const char* name) {
    if (!loaded()) return 0;
    int n = 0;
    vabi::Device** list = f.get_device_list(&n);
    if (!list) { set_err("ibv_get_device_list", errno); return 0; }
    vabi::Device* dev = nullptr;
    for (int i = 0; i < n; i++)
        if (strcmp(f.get_device_name(list[i]), name) == 0) dev = list[i];
    if (!dev) {
        snprintf(g_err, sizeof g_err, "no verbs device named '%s'", name);
        f.free_device_list(list);
        return 0;
    }
    vabi::Context* c = f.open_device(dev);
    int e = errno;
    f.free_device_list(list);
    if (!c) { set_err("ibv_open_device", e); return 0; }
    vabi::Pd* pd = f.alloc_pd(c);
    if (!pd) { set_err("ibv_alloc_pd", errno); f.close_device(c); return 0; }
    Ctx* x = (Ctx*) calloc(1, sizeof(Ctx));
    x->ctx = c;
    x->pd = pd;
    return handle(x);
}

void ucv_close(long long h) {
    Ctx* x = as<Ctx>(h);
    if (!x) return;
    f.dealloc_pd(x->pd);
    f.close_device(x->ctx);
    free(x);
}

int ucv_device_attr(long long h, long long* out) {
    Ctx* x = as<Ctx>(h);
    vabi::DeviceAttr a;
    memset(&a, 0, sizeof a);
    int rc = f.query_device(x->ctx, &a);
    if (rc) { set_err("ibv_query_device", rc); return -1; }
    out[0] = a.phys_port_cnt;
    out[1] = a.max_qp_wr;
    out[2] = a.max_cqe;
    out[3] = a.max_qp_rd_atom;
    out[4] = a.max_qp_init_rd_atom;
    out[5] = a.atomic_cap;
    out[6] = (long long) a.max_mr_size;
    out[7] = a.max_sge;
    return 0;
}

int ucv_port_attr(long long h, int port, long long* out) {
    Ctx* x = as<Ctx>(h);
    vabi::PortAttr a;
    memset(&a, 0, sizeof a);
    // Same as verbs.h's ___ibv_query_port: the extended op when the provider has it.
    vabi::ExtendedContextTail* ext = vabi::extended_with_query_port(x->ctx);
    int rc = ext ? ext->query_port(x->ctx, (uint8_t) port, &a, sizeof a)
                 : f.query_port(x->ctx, (uint8_t) port, &a);
    if (rc) { set_err("ibv_query_port", rc); return -1; }
    out[0] = a.state;
    out[1] = a.active_mtu;
    out[2] = a.lid;
    out[3] = a.link_layer;
    out[4] = a.gid_tbl_len;
    out[5] = a.max_msg_sz;
    return 0;
}

static long long be64(const uint8_t* b) {
    unsigned long long v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | b[i];
    return (long long) v;
}

static void put_be64(uint8_t* b, long long v) {
    unsigned long long u = (unsigned long long) v;
    for (int i = 7; i >= 0; i--) { b[i] = (uint8_t) (u & 0xff); u >>= 8; }
}

int ucv_gid(long long h, int port, int index, long long* out) {
    Ctx* x = as<Ctx>(h);
    vabi::Gid g;
    int rc = f.query_gid(x->ctx, (uint8_t) port, index, &g);
    if (rc) { set_err("ibv_query_gid", rc ? errno : 0); return -1; }
    out[0] = be64(g.raw);
    out[1] = be64(g.raw + 8);
    return 0;
}

long long ucv_cq_create(long long h, int cqe, int with_events) {
    Ctx* x = as<Ctx>(h);
    vabi::CompChannel* ch = nullptr;
    if (with_events) {
        ch = f.create_comp_channel(x->ctx);
        if (!ch) { set_err("ibv_create_comp_channel", errno); return 0; }
    }
    vabi::Cq* cq = f.create_cq(x->ctx, cqe, nullptr, ch, 0);
    if (!cq) {
        set_err("ibv_create_cq", errno);
        if (ch) f.destroy_comp_channel(ch);
        return 0;
    }
    Cq* c = (Cq*) calloc(1, sizeof(Cq));
    c->cq = cq;
    c->ch = ch;
    return handle(c);
}

void ucv_cq_destroy(long long h) {
    Cq* c = as<Cq>(h);
    if (!c) return;
    f.destroy_cq(c->cq);
    if (c->ch) f.destroy_comp_channel(c->ch);
    free(c);
}

int ucv_cq_poll(long long h, int max, long long* out) {
    Cq* c = as<Cq>(h);
    vabi::Wc wc[32];
    int total = 0;
    while (total < max) {
        int want = max - total < 32 ? max - total : 32;
        int n = vabi::poll_cq(c->cq, want, wc);
        if (n < 0) { set_err("ibv_poll_cq", n); return -1; }
        for (int i = 0; i < n; i++) {
            long long* o = out + (long long) (total + i) * UCV_WC_LONGS;
            o[0] = (long long) wc[i].wr_id;
            o[1] = wc[i].status;
            o[2] = wc[i].opcode;
            o[3] = wc[i].byte_len;
            o[4] = (wc[i].wc_flags & vabi::WC_WITH_IMM) ? 1 : 0;
            o[5] = (long long) ntohl(wc[i].imm_data);
            o[6] = wc[i].vendor_err;
            o[7] = wc[i].qp_num;
        }
        total += n;
        if (n < want) break;
    }
    return total;
}

int ucv_cq_arm(long long h) {
    Cq* c = as<Cq>(h);
    int rc = vabi::req_notify_cq(c->cq, 0);
    if (rc) { set_err("ibv_req_notify_cq", rc); return -1; }
    return 0;
}

int ucv_cq_wait(long long h, int timeout_ms) {
    Cq* c = as<Cq>(h);
    if (!c->ch) { snprintf(g_err, sizeof g_err, "completion queue has no event channel"); return -1; }
    struct pollfd p;
    p.fd = c->ch->fd;
    p.events = POLLIN;
    p.revents = 0;
    int rc = poll(&p, 1, timeout_ms);
    if (rc < 0) {
        if (errno == EINTR) return 0;
        set_err("poll(completion channel)", errno);
        return -1;
    }
    if (rc == 0) return 0;
    vabi::Cq* ev_cq = nullptr;
    void* ev_ctx = nullptr;
    if (f.get_cq_event(c->ch, &ev_cq, &ev_ctx)) { set_err("ibv_get_cq_event", errno); return -1; }
    f.ack_cq_events(ev_cq, 1);
    return 1;
}

long long ucv_qp_create(long long h, long long cqh, int max_send_wr, int max_recv_wr) {
    Ctx* x = as<Ctx>(h);
    Cq* c = as<Cq>(cqh);
    vabi::QpInitAttr a;
    memset(&a, 0, sizeof a);
    a.send_cq = c->cq;
    a.recv_cq = c->cq;
    a.qp_type = vabi::QPT_RC;
    a.sq_sig_all = 0;
    a.cap.max_send_wr = (uint32_t) max_send_wr;
    a.cap.max_recv_wr = (uint32_t) max_recv_wr;
    a.cap.max_send_sge = 1;
    a.cap.max_recv_sge = 1;
    vabi::Qp* qp = f.create_qp(x->pd, &a);
    if (!qp) { set_err("ibv_create_qp", errno); return 0; }
    return handle(qp);
}

void ucv_qp_destroy(long long h) {
    vabi::Qp* qp = as<vabi::Qp>(h);
    if (qp) f.destroy_qp(qp);
}

int ucv_qp_num(long long h) { return (int) as<vabi::Qp>(h)->qp_num; }

int ucv_qp_connect(long long h, int port, int gid_index, int mtu_enum, int remote_qpn, int remote_psn,
                   int remote_lid, long long gid_hi, long long gid_lo, int local_psn, int rd_atomic,
                   int timeout, int retry_cnt) {
    vabi::Qp* qp = as<vabi::Qp>(h);
    vabi::QpAttr a;
    memset(&a, 0, sizeof a);
    a.qp_state = vabi::QPS_INIT;
    a.pkey_index = 0;
    a.port_num = (uint8_t) port;
    a.qp_access_flags = vabi::ACCESS_LOCAL_WRITE | vabi::ACCESS_REMOTE_WRITE | vabi::ACCESS_REMOTE_READ | vabi::ACCESS_REMOTE_ATOMIC;
    int rc = f.modify_qp(qp, &a, vabi::QP_STATE | vabi::QP_PKEY_INDEX | vabi::QP_PORT | vabi::QP_ACCESS_FLAGS);
    if (rc) { set_err("ibv_modify_qp(INIT)", rc); return -1; }

    memset(&a, 0, sizeof a);
    a.qp_state = vabi::QPS_RTR;
    a.path_mtu = mtu_enum;
    a.dest_qp_num = (uint32_t) remote_qpn;
    a.rq_psn = (uint32_t) remote_psn & 0xffffff;
    a.max_dest_rd_atomic = (uint8_t) rd_atomic;
    a.min_rnr_timer = 12;
    a.ah_attr.port_num = (uint8_t) port;
    a.ah_attr.dlid = (uint16_t) remote_lid;
    a.ah_attr.sl = 0;
    if (gid_index >= 0) {
        a.ah_attr.is_global = 1;
        put_be64(a.ah_attr.grh.dgid.raw, gid_hi);
        put_be64(a.ah_attr.grh.dgid.raw + 8, gid_lo);
        a.ah_attr.grh.sgid_index = (uint8_t) gid_index;
        a.ah_attr.grh.hop_limit = 64;
    }
    rc = f.modify_qp(qp, &a, vabi::QP_STATE | vabi::QP_AV | vabi::QP_PATH_MTU | vabi::QP_DEST_QPN | vabi::QP_RQ_PSN
                             | vabi::QP_MAX_DEST_RD_ATOMIC | vabi::QP_MIN_RNR_TIMER);
    if (rc) { set_err("ibv_modify_qp(RTR)", rc); return -1; }

    memset(&a, 0, sizeof a);
    a.qp_state = vabi::QPS_RTS;
    a.timeout = (uint8_t) timeout;
    a.retry_cnt = (uint8_t) retry_cnt;
    a.rnr_retry = 7;  // wait for the peer's posted receive as long as it takes (peer alive)
    a.sq_psn = (uint32_t) local_psn & 0xffffff;
    a.max_rd_atomic = (uint8_t) rd_atomic;
    rc = f.modify_qp(qp, &a, vabi::QP_STATE | vabi::QP_TIMEOUT | vabi::QP_RETRY_CNT | vabi::QP_RNR_RETRY | vabi::QP_SQ_PSN
                             | vabi::QP_MAX_QP_RD_ATOMIC);
    if (rc) { set_err("ibv_modify_qp(RTS)", rc); return -1; }
    return 0;
}

long long ucv_mr_reg(long long h, long long addr, long long len, int access) {
    Ctx* x = as<Ctx>(h);
    vabi::Mr* mr = f.reg_mr(x->pd, as<void>(addr), (size_t) len, access);
    if (!mr) { set_err("ibv_reg_mr", errno); return 0; }
    return handle(mr);
}

int ucv_mr_lkey(long long h) { return (int) as<vabi::Mr>(h)->lkey; }
int ucv_mr_rkey(long long h) { return (int) as<vabi::Mr>(h)->rkey; }

int ucv_mr_dereg(long long h) {
    int rc = f.dereg_mr(as<vabi::Mr>(h));
    if (rc) { set_err("ibv_dereg_mr", rc); return -1; }
    return 0;
}

int ucv_post_rdma(long long h, int opcode, long long wr_id, int count, long long* local_addrs, int lkey,
                  long long* remote_addrs, int rkey, int length, int imm, int signal_last) {
    vabi::Qp* qp = as<vabi::Qp>(h);
    if (count <= 0) return 0;
    vabi::SendWr* wrs = (vabi::SendWr*) calloc((size_t) count, sizeof(vabi::SendWr));
    vabi::Sge* sges = (vabi::Sge*) calloc((size_t) count, sizeof(vabi::Sge));
    if (!wrs || !sges) { free(wrs); free(sges); set_err("calloc", ENOMEM); return -1; }
    int op = opcode == 0 ? vabi::WR_RDMA_WRITE : opcode == 1 ? vabi::WR_RDMA_WRITE_WITH_IMM : vabi::WR_RDMA_READ;
    for (int i = 0; i < count; i++) {
        sges[i].addr = (uint64_t) local_addrs[i];
        sges[i].length = (uint32_t) length;
        sges[i].lkey = (uint32_t) lkey;
        wrs[i].wr_id = (uint64_t) wr_id;
        wrs[i].sg_list = &sges[i];
        wrs[i].num_sge = 1;
        wrs[i].opcode = op;
        wrs[i].send_flags = (!signal_last || i == count - 1) ? vabi::SEND_SIGNALED : 0u;
        if (op == vabi::WR_RDMA_WRITE_WITH_IMM) wrs[i].imm_data = htonl((uint32_t) imm);
        wrs[i].wr.rdma.remote_addr = (uint64_t) remote_addrs[i];
        wrs[i].wr.rdma.rkey = (uint32_t) rkey;
        wrs[i].next = i + 1 < count ? &wrs[i + 1] : nullptr;
    }
    vabi::SendWr* bad = nullptr;
    int rc = vabi::post_send(qp, wrs, &bad);
    int posted = rc ? (int) (bad - wrs) : count;
    free(wrs);
    free(sges);
    if (rc) { set_err("ibv_post_send", rc); return posted > 0 ? -1000 - posted : -1; }
    return 0;
}

int ucv_post_send(long long h, long long wr_id, long long addr, int len, int lkey) {
    vabi::Sge sge;
    sge.addr = (uint64_t) addr;
    sge.length = (uint32_t) len;
    sge.lkey = (uint32_t) lkey;
    vabi::SendWr wr;
    memset(&wr, 0, sizeof wr);
    wr.wr_id = (uint64_t) wr_id;
    wr.sg_list = &sge;
    wr.num_sge = len > 0 ? 1 : 0;
    wr.opcode = vabi::WR_SEND;
    wr.send_flags = vabi::SEND_SIGNALED;
    vabi::SendWr* bad = nullptr;
    int rc = vabi::post_send(as<vabi::Qp>(h), &wr, &bad);
    if (rc) { set_err("ibv_post_send(SEND)", rc); return -1; }
    return 0;
}

int ucv_post_atomic(long long h, long long wr_id, long long local_addr, int lkey, long long remote_addr, int rkey,
                    int opcode, long long compare_add, long long swap) {
    vabi::Sge sge;
    sge.addr = (uint64_t) local_addr;
    sge.length = 8;
    sge.lkey = (uint32_t) lkey;
    vabi::SendWr wr;
    memset(&wr, 0, sizeof wr);
    wr.wr_id = (uint64_t) wr_id;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = opcode == 0 ? vabi::WR_ATOMIC_FETCH_AND_ADD : vabi::WR_ATOMIC_CMP_AND_SWP;
    wr.send_flags = vabi::SEND_SIGNALED;
    wr.wr.atomic.remote_addr = (uint64_t) remote_addr;
    wr.wr.atomic.rkey = (uint32_t) rkey;
    wr.wr.atomic.compare_add = (uint64_t) compare_add;
    wr.wr.atomic.swap = (uint64_t) swap;
    vabi::SendWr* bad = nullptr;
    int rc = vabi::post_send(as<vabi::Qp>(h), &wr, &bad);
    if (rc) { set_err("ibv_post_send(ATOMIC)", rc); return -1; }
    return 0;
}

int ucv_post_recv(long long h, long long wr_id, long long addr, int len, int lkey) {
    vabi::Sge sge;
    sge.addr = (uint64_t) addr;
    sge.length = (uint32_t) len;
    sge.lkey = (uint32_t) lkey;
    vabi::RecvWr wr;
    memset(&wr, 0, sizeof wr);
    wr.wr_id = (uint64_t) wr_id;
    wr.sg_list = &sge;
    wr.num_sge = len > 0 ? 1 : 0;
    vabi::RecvWr* bad = nullptr;
    int rc = vabi::post_recv(as<vabi::Qp>(h), &wr, &bad);
    if (rc) { set_err("ibv_post_recv", rc); return -1; }
    return 0;
}

}  // extern "C"
