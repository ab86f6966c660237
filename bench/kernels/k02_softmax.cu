// K2 twin: row softmax, one 256-thread block per row; warp shuffles then 8 partials in shared memory
// (kernels.cpp, k2 and workgroup_reduce).
#include "twin_common.cuh"

namespace {

constexpr unsigned kCols = 256;
constexpr unsigned kWarps = kCols / 32;

__device__ float warp_max(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_xor_sync(twin::kFullMask, v, offset));
  return v;
}

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v = v + __shfl_xor_sync(twin::kFullMask, v, offset);
  return v;
}

__global__ void softmax(const float* __restrict__ x, float* __restrict__ y) {
  __shared__ float partial[kWarps];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned i = blockIdx.x * kCols + threadIdx.x;
  const float v = x[i];
  const float m = warp_max(v);
  __syncthreads();
  if (lane == 0) partial[warp] = m;
  __syncthreads();
  float row_max = partial[0];
  for (unsigned w = 1; w < kWarps; ++w) row_max = fmaxf(row_max, partial[w]);
  const float e = expf(v - row_max);
  const float s = warp_sum(e);
  __syncthreads();
  if (lane == 0) partial[warp] = s;
  __syncthreads();
  float row_sum = partial[0];
  for (unsigned w = 1; w < kWarps; ++w) row_sum = row_sum + partial[w];
  y[i] = e / row_sum;
}

}  // namespace

VYRE_TWIN_EXPORT int vyre_twin_k2(vyre_twin_args* args) {
  return twin::run(args, 2, [&](void* const* d, dim3 grid, dim3 block, cudaStream_t s) {
    twin::require(args->params[1] == kCols && block.x == kCols, "K2 twin is built for 256 columns. Fix: keep kSoftmaxCols at 256.");
    softmax<<<grid, block, 0, s>>>(twin::buffer<const float>(d, 0), twin::buffer<float>(d, 1));
  });
}
