// K8 twin: inclusive scan in 256-element tiles: warp scans by shuffle-up, the 8 warp totals scanned
// by warp 0 through shared memory, the tile total written by the last thread (kernels.cpp, k8).
#include "twin_common.cuh"

namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kWarps = kThreads / 32;

__device__ unsigned warp_scan(unsigned v, unsigned lane) {
  for (unsigned offset = 1; offset < 32; offset <<= 1) {
    const unsigned from = __shfl_up_sync(twin::kFullMask, v, offset);
    if (lane >= offset) v += from;
  }
  return v;
}

__global__ void tile_scan(const unsigned* __restrict__ data, unsigned* __restrict__ out,
                          unsigned* __restrict__ tile_totals) {
  __shared__ unsigned sums[kWarps];
  const unsigned lid = threadIdx.x, lane = lid % 32, warp = lid / 32;
  const unsigned gid = blockIdx.x * kThreads + lid;
  const unsigned v = warp_scan(data[gid], lane);
  if (lane == 31) sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    unsigned w = lane < kWarps ? sums[lane] : 0u;
    w = warp_scan(w, lane);
    if (lane < kWarps) sums[lane] = w;
  }
  __syncthreads();
  const unsigned result = v + (warp > 0 ? sums[warp - 1] : 0u);
  out[gid] = result;
  if (lid == kThreads - 1) tile_totals[blockIdx.x] = result;
}

}  // namespace

VYRE_TWIN_EXPORT int vyre_twin_k8(vyre_twin_args* args) {
  return twin::run(args, 3, [&](void* const* d, dim3 grid, dim3 block, cudaStream_t s) {
    twin::require(block.x == kThreads, "K8 twin is built for 256 threads. Fix: keep kScanWorkgroup at 256.");
    tile_scan<<<grid, block, 0, s>>>(twin::buffer<const unsigned>(d, 0), twin::buffer<unsigned>(d, 1),
                                     twin::buffer<unsigned>(d, 2));
  });
}
