// Can the host learn that a kernel is done more cheaply than by the kernel's own last-block stamp?
// One H200, one process, 132 x 1024 threads, each kernel queued behind a 50 us hold (aligned):
// event time of the kernel (plus, where used, the stream write after it), and host wall from the launch
// call until the host sees completion. The MoE kernels today use variant 0 (every block counts in with an
// acq_rel atomic, the last one stores the stamp with st.release.sys).
// Build: nvcc -O2 -arch=sm_90 -o publish-after publish-after.cu; run on the GPU machine (the driver's
// cuStreamWriteValue64 is looked up at run time: no libcuda needed to link).
#include <cstdio>
#include <chrono>
#include <algorithm>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>
__device__ unsigned int counter;
__device__ __forceinline__ void st_release_sys(volatile long long *p, long long v) {
    asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned int atom_add_acqrel_gpu(unsigned int *p, unsigned int v) {
    unsigned int old; asm volatile("atom.add.acq_rel.gpu.global.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory"); return old;
}
// stamp != 0: the last block stores seq there (today's pattern); stamp == 0: the kernel writes nothing.
__global__ void work_k(volatile long long *stamp, long long seq) {
    __syncthreads();
    if (stamp == nullptr || threadIdx.x != 0) return;
    if (atom_add_acqrel_gpu(&counter, 1u) != gridDim.x - 1) return;
    *(volatile unsigned int *) &counter = 0;
    st_release_sys(stamp, seq);
}
__global__ void hold_k(unsigned long long ns) {
    unsigned long long t0; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    for (;;) { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); if (t - t0 > ns) break; __nanosleep(1000); }
}
enum { IN_KERNEL, STREAM_WRITE, EVENT_QUERY, STREAM_SYNC, NONE };
static const char *names[] = {"last block stamps (st.release.sys) [today]", "no stamp; cuStreamWriteValue64 after kernel",
                              "no stamp; host spins on cudaEventQuery", "no stamp; cudaStreamSynchronize", "no stamp, nothing after (floor)"};
int main() {
    cudaFree(0);
    cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    long long *host; cudaHostAlloc(&host, 4096, cudaHostAllocMapped);
    long long *dev_view; cudaHostGetDevicePointer((void **) &dev_view, host, 0);
    volatile long long *h = host;
    cudaEvent_t a, b, done; cudaEventCreate(&a); cudaEventCreate(&b); cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
    PFN_cuStreamWriteValue64_v11070 write64 = nullptr;
    cudaDriverEntryPointQueryResult found;
    if (cudaGetDriverEntryPointByVersion("cuStreamWriteValue64", (void **) &write64, 11070, cudaEnableDefault, &found) != cudaSuccess || write64 == nullptr) {
        printf("cuStreamWriteValue64 not found\n"); return 1;
    }
    long long seq = 0;
    auto enqueue = [&](int v) {
        ++seq;
        work_k<<<132, 1024, 0, s>>>(v == IN_KERNEL ? dev_view : nullptr, seq);
        if (v == STREAM_WRITE) write64((CUstream) s, (CUdeviceptr) dev_view, (cuuint64_t) seq, CU_STREAM_WRITE_VALUE_DEFAULT);
    };
    for (int round = 0; round < 2; round++)
        for (int v = 0; v < 5; v++) {
            const int n = 400; float ev[n], hw[n];
            for (int it = 0; it < n; it++) {
                hold_k<<<1, 32, 0, s>>>(50000);
                cudaEventRecord(a, s); enqueue(v); cudaEventRecord(b, s);
                cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ev[it] = ms * 1000;
                auto t0 = std::chrono::steady_clock::now();
                enqueue(v);
                if (v == IN_KERNEL || v == STREAM_WRITE) while (h[0] != seq) {}
                else if (v == EVENT_QUERY) { cudaEventRecord(done, s); while (cudaEventQuery(done) == cudaErrorNotReady) {} }
                else cudaStreamSynchronize(s);
                hw[it] = std::chrono::duration<float, std::micro>(std::chrono::steady_clock::now() - t0).count();
                cudaStreamSynchronize(s);
            }
            std::sort(ev, ev + n); std::sort(hw, hw + n);
            printf("round %d  %-46s event median %5.2f min %5.2f | host wall median %5.2f min %5.2f us\n", round, names[v], ev[n / 2], ev[0], hw[n / 2], hw[0]);
        }
    cudaError_t e = cudaGetLastError();
    printf("cuda: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
