/*
 * What the NVSHMEM reference programs (nvlink_ref.cu, rma_ref.cu) share: the CUDA error check and
 * NVSHMEM start-up through a unique id that PE 0 writes to a file in $UNICOMM_FILE_STORE and the
 * other PEs read (no MPI on the machines these run on). Included by each program; built with it.
 */
#pragma once
#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorName(e)); exit(2); } } while (0)

/* PE 0 writes the id to dir/name (through a rename, so readers never see half a file); the others poll up to a minute. */
static void exchange_uid(int rank, const char *dir, const char *name, nvshmemx_uniqueid_t *id) {
    char path[1024], tmp[1100];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (rank == 0) {
        nvshmemx_get_uniqueid(id);
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        FILE *f = fopen(tmp, "wb");
        fwrite(id, sizeof *id, 1, f);
        fclose(f);
        rename(tmp, path);
        return;
    }
    for (int i = 0; i < 600000; i++) {
        FILE *f = fopen(path, "rb");
        if (f) {
            size_t got = fread(id, sizeof *id, 1, f);
            fclose(f);
            if (got == 1) return;
        }
        usleep(100);
    }
    fprintf(stderr, "rank %d: no unique id in %s\n", rank, path);
    exit(3);
}

/* Starts NVSHMEM as PE rank of size, the unique id exchanged through dir/uid_name; call after cudaSetDevice. */
static void init_nvshmem(int rank, int size, const char *dir, const char *uid_name) {
    nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
    exchange_uid(rank, dir, uid_name, &id);
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    nvshmemx_set_attr_uniqueid_args(rank, size, &id, &attr);
    nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
}
