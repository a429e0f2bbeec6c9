/* Codes shared by the JNI shim, the ops library and the Java side (NvOps mirrors them). */
#ifndef UCN_CODES_H
#define UCN_CODES_H

#define UCN_OK 0
/* cudaStreamQuery: work still pending (not an error). */
#define UCN_NOT_READY 1
/* A CUDA runtime error; the code is the cudaError_t, the name its cudaGetErrorName. */
#define UCN_ERR_CUDA 2
/* An NVSHMEM call returned non-zero or gave no result (e.g. nvshmem_align returned NULL). */
#define UCN_ERR_NVSHMEM 3
/* The ops library is not loaded (the JNI shim answers this itself). */
#define UCN_ERR_NOT_LOADED 4
/* An argument the Java side should have rejected (defence in depth, never reached in practice). */
#define UCN_ERR_ARGUMENT 5

/* Atomic operations of ucn_atomic. */
#define UCN_AMO_FETCH 0
#define UCN_AMO_SET 1
#define UCN_AMO_FETCH_ADD 2
#define UCN_AMO_ADD 3
#define UCN_AMO_CSWAP 4
#define UCN_AMO_SWAP 5

/* Element types and reductions of ucn_reduce. */
#define UCN_DT_INT32 0
#define UCN_DT_INT64 1
#define UCN_DT_FP32 2
#define UCN_DT_FP16 3
#define UCN_DT_BF16 4
#define UCN_OP_SUM 0
#define UCN_OP_MIN 1
#define UCN_OP_MAX 2
#define UCN_OP_PROD 3

/* Team handle of the world team. */
#define UCN_TEAM_WORLD 0

#endif
