// K9 twin: min, max and 64-bit sum of u32 in one grid-stride pass; warp reductions, then one atomic
// of each per warp (kernels.cpp, k9).
#include "twin_common.cuh"

namespace {

__global__ void stats(const unsigned* __restrict__ data, unsigned* __restrict__ minmax,
                      unsigned long long* __restrict__ total, unsigned n) {
  const unsigned stride = gridDim.x * blockDim.x;
  unsigned lo = 0xFFFFFFFFu, hi = 0;
  unsigned long long sum = 0;
  for (unsigned idx = blockIdx.x * blockDim.x + threadIdx.x; idx < n; idx += stride) {
    const unsigned v = data[idx];
    lo = min(lo, v);
    hi = max(hi, v);
    sum += v;
  }
  lo = __reduce_min_sync(twin::kFullMask, lo);
  hi = __reduce_max_sync(twin::kFullMask, hi);
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_xor_sync(twin::kFullMask, sum, offset);
  if (threadIdx.x % 32 == 0) {
    atomicMin(&minmax[0], lo);
    atomicMax(&minmax[1], hi);
    atomicAdd(total, sum);
  }
}

}  // namespace

VYRE_TWIN_EXPORT int vyre_twin_k9(vyre_twin_args* args) {
  return twin::run(args, 3, [&](void* const* d, dim3 grid, dim3 block, cudaStream_t s) {
    stats<<<grid, block, 0, s>>>(twin::buffer<const unsigned>(d, 0), twin::buffer<unsigned>(d, 1),
                                 twin::buffer<unsigned long long>(d, 2), static_cast<unsigned>(args->params[0]));
  });
}
