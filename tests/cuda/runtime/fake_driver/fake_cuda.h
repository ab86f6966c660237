/* A fake CUDA driver for testing the runtime's host side on machines without a GPU.
 *
 * It exports cuInit, cuDriverGetVersion, cuGetErrorName and cuGetProcAddress_v2 and implements, on
 * the CPU, every entry point the runtime resolves. Device memory is host memory. Work queued on a
 * stream runs lazily: only when something waits for it (event/stream synchronize, a successful
 * event query, or another stream waiting on an event of it), so a missing cross-stream wait shows
 * up as a wrong result. Kernels run through a hook the test installs (the fake knows each entry's
 * parameter layout from the PTX text). Misuse is counted as violations: a driver call without a
 * current context, copies outside live allocations or from unpinned host memory, freeing memory
 * that queued work still uses, a cooperative launch that does not fit, unknown handles, a launch
 * whose block is not its entry's .reqntid (which a real driver refuses).
 */
#ifndef VYRE_FAKE_CUDA_H
#define VYRE_FAKE_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fake_cuda_launch {
  const char* entry;          /* .entry name, e.g. "vyre_main" */
  unsigned grid[3];
  unsigned block[3];
  const uint64_t* params;     /* parameter values in declaration order (u32 zero-extended) */
  size_t param_count;
  int cooperative;
} fake_cuda_launch;

typedef void (*fake_cuda_kernel_fn)(const fake_cuda_launch* launch, void* user);

typedef struct fake_cuda_stats {
  uint64_t live_device_allocations;
  uint64_t live_device_bytes;
  uint64_t live_host_allocations;
  uint64_t live_streams;
  uint64_t live_events;
  uint64_t live_modules;
  uint64_t live_graphs;
  uint64_t live_execs;
  uint64_t kernel_launches;      /* kernels executed (direct or in graphs) */
  uint64_t device_copies;        /* copies executed (direct or in graphs), either direction */
  uint64_t device_memsets;       /* memsets executed (direct or in graphs) */
  uint64_t cooperative_launches;
  uint64_t graph_launches;
  uint64_t captures;
  uint64_t violations;
  char last_violation[256];
  uint64_t live_host_bytes;      /* pinned host memory allocated now (cuMemHostAlloc) */
  uint64_t peak_host_bytes;      /* the most of it at any time since the last counter reset */
} fake_cuda_stats;

void fake_cuda_get_stats(fake_cuda_stats* out);
void fake_cuda_set_kernel(fake_cuda_kernel_fn fn, void* user);
void fake_cuda_set_total_memory(uint64_t bytes);
/* Zero the counters (not the live counts); the peak restarts at the live pinned bytes. */
void fake_cuda_reset_counters(void);
/* How often the entry point `name` (e.g. "cuPointerGetAttribute") was called through the pointer
 * cuGetProcAddress handed out, since load or fake_cuda_reset_call_counts; UINT64_MAX for a name
 * the fake does not implement. */
uint64_t fake_cuda_call_count(const char* name);
void fake_cuda_reset_call_counts(void);

/* For the fake NCCL (fake_nccl/), which queues its data movement on the fake's streams. Device d's
 * primary context is its own (FAKE_CUDA_DEVICES devices, default 1); device memory and streams
 * used under another device's context count as violations. */
int fake_cuda_current_device(void);    /* the current context's device, -1 without one */
int fake_cuda_stream_device(void* stream); /* -1 for an unknown stream */
/* The device of the device allocation holding [address, address + bytes), -1 for none. */
int fake_cuda_pointer_device(uint64_t address, uint64_t bytes);
/* Queue fn(user) on `stream`, to run in stream order (lazily, like all work); returns the stream's
 * position after it (what fake_cuda_run_stream_until takes to run everything before it: minus 1). */
uint64_t fake_cuda_enqueue_host(void* stream, void (*fn)(void* user), void* user);
/* Run `stream`'s queued work until `position` operations have run. */
void fake_cuda_run_stream_until(void* stream, uint64_t position);
/* Report a misuse (counted with the fake's own violations). */
void fake_cuda_violation(const char* what);
/* The fake's one (recursive) lock, which also guards the fake NCCL's state: host operations run
 * with it held, so taking it around NCCL calls keeps one lock order. */
void fake_cuda_lock(void);
void fake_cuda_unlock(void);
/* Release every level of the lock this thread holds and return how many (to wait for other
 * threads, as the fake NCCL does for ranks of a group that spans processes); fake_cuda_relock
 * takes them again. */
int fake_cuda_unlock_all(void);
void fake_cuda_relock(int depth);

#ifdef __cplusplus
}
#endif

#endif
