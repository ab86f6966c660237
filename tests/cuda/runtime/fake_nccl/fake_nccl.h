/* A fake NCCL for testing device groups on machines without GPUs (as fake_driver/ fakes the CUDA
 * driver, on whose streams and host-memory "device" pointers it works; it links that library).
 *
 * It exports the entry points of plugins/cuda/src/group/nccl_api.hpp. Communicators of one unique
 * id form a clique, in one process. A collective or send/recv queues a host operation on its
 * stream; the k-th collective of every rank of a clique (and the k-th send from a to b with the
 * k-th receive at b from a) form one operation, which moves the data when the first of its
 * queued operations runs, after running the other ranks' streams up to theirs: so work queued
 * before it on any rank is complete, as with the real library, and a missing stream dependency
 * shows up as a wrong result. Misuse is a violation (counted here and in the fake driver): ranks
 * that disagree on sizes, types or ops, a rank that never joins, a buffer of another device,
 * a stream of another device, two ranks on one device, multi-rank init from one thread outside
 * ncclGroupStart/End (the real library would hang). Like the real library, ncclCommInitRank (or the
 * ncclGroupEnd closing it) returns once every rank of its clique joined, so ranks may join from
 * several threads as processes would (waiting up to 10 s, then ncclSystemError).
 *
 * Environment: FAKE_NCCL_VERSION (default 22805), FAKE_NCCL_FAIL_INIT=1 (ncclCommInitRank returns
 * ncclSystemError), FAKE_NCCL_ASYNC_ERROR=N (ncclCommGetAsyncError reports N),
 * FAKE_NCCL_FLOAT_SUM_ORDER=reverse (float sums add the ranks in reverse order, as a real ring may
 * add them in another order than rank order).
 */
#ifndef VYRE_FAKE_NCCL_H
#define VYRE_FAKE_NCCL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fake_nccl_stats {
  uint64_t live_comms;
  uint64_t inits;
  uint64_t all_reduces;
  uint64_t reduce_scatters;
  uint64_t all_gathers;
  uint64_t broadcasts;
  uint64_t sends;
  uint64_t recvs;
  uint64_t groups;          /* outermost ncclGroupEnd calls */
  uint64_t bytes_moved;     /* bytes written into receive buffers */
  uint64_t violations;
  char last_violation[256];
} fake_nccl_stats;

void fake_nccl_get_stats(fake_nccl_stats* out);
/* Zero the counters (not live_comms). */
void fake_nccl_reset_counters(void);

#ifdef __cplusplus
}
#endif

#endif
