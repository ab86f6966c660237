// K4 twin: 256-bin histogram of the top byte, shared-memory atomics, grid-stride loop (kernels.cpp, k4).
#include "twin_common.cuh"

namespace {

constexpr unsigned kBins = 256;

__global__ void histogram(const unsigned* __restrict__ data, unsigned* __restrict__ bins, unsigned n) {
  __shared__ unsigned local_bins[kBins];
  local_bins[threadIdx.x] = 0;
  __syncthreads();
  const unsigned stride = gridDim.x * kBins;
  for (unsigned idx = blockIdx.x * kBins + threadIdx.x; idx < n; idx += stride) atomicAdd(&local_bins[data[idx] >> 24], 1u);
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], local_bins[threadIdx.x]);
}

}  // namespace

VYRE_TWIN_EXPORT int vyre_twin_k4(vyre_twin_args* args) {
  return twin::run(args, 2, [&](void* const* d, dim3 grid, dim3 block, cudaStream_t s) {
    twin::require(block.x == kBins, "K4 twin is built for 256 threads. Fix: keep kBins at 256.");
    histogram<<<grid, block, 0, s>>>(twin::buffer<const unsigned>(d, 0), twin::buffer<unsigned>(d, 1),
                                     static_cast<unsigned>(args->params[0]));
  });
}
