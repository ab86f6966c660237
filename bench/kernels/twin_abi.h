/* The C entry points of libvyre_kernel_twins.so: the CUDA C twins of the kernel suite (bench/kernels/
 * k*.cu, nvcc -O3 -arch=sm_90, precise math). vyre-bench dlopens the library and calls
 * `int vyre_twin_k<N>(vyre_twin_args*)` per case with the same buffers, grid and block as the vyre
 * side. The twin copies every buffer to the device, runs `warmup` untimed launches, then `reps`
 * launches each timed with CUDA events (buffers with their reset bit set are uploaded again before
 * every launch, as vyre-bench does on its side), and copies the buffers whose output bit is set back
 * into their host memory. Returns 0, or non-zero with a message ending in "Fix: ..." in `error`. */
#ifndef VYRE_BENCH_TWIN_ABI_H
#define VYRE_BENCH_TWIN_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VYRE_TWIN_ABI_VERSION 1u
#define VYRE_TWIN_MAX_BUFFERS 8u

typedef struct vyre_twin_buffer {
  void* host;      /* initial contents; the result for an output */
  uint64_t bytes;
  uint32_t reset;  /* upload again before every launch */
  uint32_t output; /* copy back after the last launch */
} vyre_twin_buffer;

typedef struct vyre_twin_args {
  uint32_t struct_size;  /* sizeof(vyre_twin_args) */
  uint32_t abi_version;  /* VYRE_TWIN_ABI_VERSION */
  uint32_t buffer_count; /* the vyre program's non-workgroup buffers, declaration order */
  vyre_twin_buffer buffers[VYRE_TWIN_MAX_BUFFERS];
  uint32_t grid[3];      /* workgroups (blocks) per axis */
  uint32_t block[3];     /* workgroup size (threads per block) */
  uint64_t params[8];    /* per kernel: sizes, constants (kernels.cpp says which) */
  uint32_t warmup;
  uint32_t reps;
  double* sample_ms;     /* reps entries: each launch's event time */
  int32_t device;        /* CUDA device ordinal */
  char error[512];
} vyre_twin_args;

typedef int (*vyre_twin_fn)(vyre_twin_args* args);

/* The version of the library's ABI (vyre-bench refuses another). */
uint32_t vyre_twin_abi_version(void);

#ifdef __cplusplus
}
#endif

#endif
