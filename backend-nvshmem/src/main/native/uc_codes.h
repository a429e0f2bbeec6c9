/* Codes shared by the JNI shim, the ops library and the Java side (NativeCodes.java mirrors them). */
#ifndef UC_CODES_H
#define UC_CODES_H

#define UC_OK 0
/* cudaStreamQuery: work still pending (not an error). */
#define UC_NOT_READY 1
/* A CUDA runtime error; the code is the cudaError_t, the name its cudaGetErrorName. */
#define UC_ERR_CUDA 2
/* An NVSHMEM call returned non-zero or gave no result (e.g. nvshmem_align returned NULL). */
#define UC_ERR_NVSHMEM 3
/* The ops library is not loaded (the JNI shim answers this itself). */
#define UC_ERR_NOT_LOADED 4
/* An argument the Java side should have rejected (defence in depth, never reached in practice). */
#define UC_ERR_ARGUMENT 5

/* Atomic operations of uc_atomic. */
#define UC_AMO_FETCH 0
#define UC_AMO_SET 1
#define UC_AMO_FETCH_ADD 2
#define UC_AMO_ADD 3
#define UC_AMO_CSWAP 4
#define UC_AMO_SWAP 5

/* Element types and reductions of uc_reduce. */
#define UC_DT_INT32 0
#define UC_DT_INT64 1
#define UC_DT_FP32 2
#define UC_DT_FP16 3
#define UC_DT_BF16 4
#define UC_OP_SUM 0
#define UC_OP_MIN 1
#define UC_OP_MAX 2
#define UC_OP_PROD 3

/* Team handle of the world team. */
#define UC_TEAM_WORLD 0

#endif
