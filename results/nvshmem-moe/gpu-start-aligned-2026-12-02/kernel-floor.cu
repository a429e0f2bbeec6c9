// Event time of small kernels on one H200 (one process, no MPS): the launch and tear-down floor under the MoE kernels.
// Build: nvcc -O2 -arch=sm_90 -o kernel-floor kernel-floor.cu; run on the GPU machine: ./kernel-floor
#include <cstdio>
#include <cuda_runtime.h>
__device__ unsigned int counter;
__global__ void empty_k() {}
__global__ void sync_k() { __syncthreads(); }
__global__ void fence_sys_k(volatile long long *host) {
    __syncthreads();
    if (threadIdx.x == 0 && blockIdx.x == 0) { for (int i = 0; i < 5; i++) host[i] = i; __threadfence_system(); host[0] = 7; }
}
__global__ void lastblock_k(volatile long long *host) {
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        unsigned int old = atomicAdd(&counter, 1u);
        if (old == gridDim.x - 1) {
            counter = 0; __threadfence();
            for (int i = 1; i < 5; i++) host[i] = i; __threadfence_system(); host[0] = old;
        }
    }
}
__global__ void hold_k(unsigned long long ns) {
    unsigned long long t0; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    for (;;) { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); if (t - t0 > ns) break; __nanosleep(1000); }
}
int main() {
    cudaStream_t s; cudaStreamCreate(&s);
    long long *host; cudaHostAlloc(&host, 4096, cudaHostAllocMapped);
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    const char *names[] = {"empty 1x32", "empty 132x1024", "syncthreads 132x1024", "fence_system+pinned 132x1024", "last-block publish 132x1024", "last-block publish 264x512"};
    for (int mode = 0; mode < 2; mode++) {
        printf("%s\n", mode ? "queued behind a 50 us hold (aligned)" : "as launched (stream idle)");
        for (int k = 0; k < 6; k++) {
            int n = 200;
            float v[200];
            for (int it = 0; it < n; it++) {
                if (mode) hold_k<<<1, 32, 0, s>>>(50000);
                cudaEventRecord(a, s);
                switch (k) {
                case 0: empty_k<<<1, 32, 0, s>>>(); break;
                case 1: empty_k<<<132, 1024, 0, s>>>(); break;
                case 2: sync_k<<<132, 1024, 0, s>>>(); break;
                case 3: fence_sys_k<<<132, 1024, 0, s>>>(host); break;
                case 4: lastblock_k<<<132, 1024, 0, s>>>(host); break;
                case 5: lastblock_k<<<264, 512, 0, s>>>(host); break;
                }
                cudaEventRecord(b, s);
                cudaEventSynchronize(b);
                float ms; cudaEventElapsedTime(&ms, a, b); v[it] = ms * 1000;
            }
            // median
            for (int i = 0; i < n; i++) for (int j = i + 1; j < n; j++) if (v[j] < v[i]) { float t = v[i]; v[i] = v[j]; v[j] = t; }
            printf("  %-32s median %6.2f us  min %6.2f us\n", names[k], v[n / 2], v[0]);
        }
    }
    return 0;
}
