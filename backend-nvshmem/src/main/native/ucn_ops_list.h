/*
 * The operations the CUDA/NVSHMEM library (libunicomm_nvshmem_ops.so) exports, as one X-macro
 * list. The ops library defines them; the JNI shim looks each one up with dlsym and forwards
 * to it. Every operation returns 0 or an error code; details come from ucn_ops_error_*.
 * X(name, parameter list, argument list)
 */
#define UCN_OPS_LIST(X) \
    X(cuda_probe, (int *device_count, int *driver_version), (device_count, driver_version)) \
    X(get_uniqueid, (signed char *out, int capacity), (out, capacity)) \
    X(init, (int rank, int nranks, const signed char *uid, int uid_len, int device), (rank, nranks, uid, uid_len, device)) \
    X(finalize, (void), ()) \
    X(init_status, (int *status), (status)) \
    X(sym_alloc, (long long bytes, long long alignment, long long *out), (bytes, alignment, out)) \
    X(sym_free, (long long ptr), (ptr)) \
    X(peer_ptr, (long long addr, int pe, long long *out), (addr, pe, out)) \
    X(heap_base, (long long *out), (out)) \
    X(register_host, (long long addr, long long bytes), (addr, bytes)) \
    X(unregister_host, (long long addr), (addr)) \
    X(dev_alloc, (long long bytes, long long *out), (bytes, out)) \
    X(dev_free, (long long ptr), (ptr)) \
    X(pinned_alloc, (long long bytes, long long *out), (bytes, out)) \
    X(pinned_free, (long long ptr), (ptr)) \
    X(copy_async, (long long dst, long long src, long long bytes, long long stream), (dst, src, bytes, stream)) \
    X(fill_async, (long long dst, int value, long long bytes, long long stream), (dst, value, bytes, stream)) \
    X(stream_create, (long long *out), (out)) \
    X(stream_destroy, (long long stream), (stream)) \
    X(stream_query, (long long stream), (stream)) \
    X(device_sync, (void), ()) \
    X(put, (long long dst, long long src, long long bytes, int pe, int nbi, long long stream), (dst, src, bytes, pe, nbi, stream)) \
    X(get, (long long dst, long long src, long long bytes, int pe, int nbi, long long stream), (dst, src, bytes, pe, nbi, stream)) \
    X(put_signal, (long long dst, long long src, long long bytes, long long sig, long long value, int add, int pe, int nbi, long long stream), (dst, src, bytes, sig, value, add, pe, nbi, stream)) \
    X(signal_wait, (long long sig, int cmp, long long value, long long stream), (sig, cmp, value, stream)) \
    X(quiet, (long long stream), (stream)) \
    X(barrier, (int team, long long stream), (team, stream)) \
    X(atomic, (int op, long long addr, long long a, long long b, int pe, long long result, long long stream), (op, addr, a, b, pe, result, stream)) \
    X(team_split_strided, (int parent, int start, int stride, int size, int *out), (parent, start, stride, size, out)) \
    X(team_split_2d, (int parent, int xrange, int *out_x, int *out_y), (parent, xrange, out_x, out_y)) \
    X(team_info, (int team, int *my_pe, int *n_pes), (team, my_pe, n_pes)) \
    X(team_translate, (int team, int pe, int dest, int *out), (team, pe, dest, out)) \
    X(team_destroy, (int team), (team)) \
    X(broadcast, (int team, long long dst, long long src, long long bytes, int root, long long stream), (team, dst, src, bytes, root, stream)) \
    X(fcollect, (int team, long long dst, long long src, long long bytes, long long stream), (team, dst, src, bytes, stream)) \
    X(alltoall, (int team, long long dst, long long src, long long bytes, long long stream), (team, dst, src, bytes, stream)) \
    X(reduce, (int team, int dtype, int op, int scatter, long long dst, long long src, long long count, long long stream), (team, dtype, op, scatter, dst, src, count, stream)) \
    X(graph_begin, (long long stream), (stream)) \
    X(graph_end, (long long stream, long long *exec), (stream, exec)) \
    X(graph_launch, (long long exec, long long stream), (exec, stream)) \
    X(graph_destroy, (long long exec), (exec)) \
    X(moe_device_info, (int *sms, long long *smem), (sms, smem)) \
    X(moe_profile, (int on), (on)) \
    X(moe_times, (float *out), (out)) \
    X(moe_layout, (const long long *args, int n), (args, n)) \
    X(moe_normal_dispatch, (const long long *args, int n, int cached), (args, n, cached)) \
    X(moe_normal_combine, (const long long *args, int n), (args, n)) \
    X(moe_ll_dispatch, (const long long *args, int n), (args, n)) \
    X(moe_ll_combine, (const long long *args, int n), (args, n))
