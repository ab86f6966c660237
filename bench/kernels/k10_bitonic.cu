// K10 twin: bitonic sort in place in one cooperative launch, a grid sync between merge steps; each
// step a grid-stride loop over the n/2 compare-exchange pairs (kernels.cpp, k10).
#include <cooperative_groups.h>

#include "twin_common.cuh"

namespace {

namespace cg = cooperative_groups;

__global__ void bitonic(unsigned* __restrict__ data, unsigned n) {
  cg::grid_group grid = cg::this_grid();
  const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned stride = gridDim.x * blockDim.x;
  const unsigned half = n / 2;
  for (unsigned k = 2; k <= n; k <<= 1) {
    for (unsigned j = k >> 1; j > 0; j >>= 1) {
      const unsigned log_j = __ffs(j) - 1;
      for (unsigned t = gid; t < half; t += stride) {
        const unsigned lo = ((t >> log_j) << (log_j + 1)) | (t & (j - 1));
        const unsigned hi = lo | j;
        const unsigned a = data[lo], c = data[hi];
        const bool up = (lo & k) == 0;
        if (up ? a > c : a < c) {
          data[lo] = c;
          data[hi] = a;
        }
      }
      if (k != n || j != 1) grid.sync();
    }
  }
}

}  // namespace

VYRE_TWIN_EXPORT int vyre_twin_k10(vyre_twin_args* args) {
  return twin::run(args, 1, [&](void* const* d, dim3 grid, dim3 block, cudaStream_t s) {
    unsigned* data = twin::buffer<unsigned>(d, 0);
    unsigned n = static_cast<unsigned>(args->params[0]);
    void* params[] = {&data, &n};
    twin::check(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&bitonic), grid, block, params, 0, s),
                "cudaLaunchCooperativeKernel");
  });
}
