// K3 twin: layer norm over f16 rows, f32 math, one 256-thread block per row (kernels.cpp, k3).
#include <cuda_fp16.h>

#include "twin_common.cuh"

namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kWarps = kThreads / 32;

__device__ float block_sum(float v, float* partial) {
  for (int offset = 16; offset > 0; offset >>= 1) v = v + __shfl_xor_sync(twin::kFullMask, v, offset);
  __syncthreads();
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  float total = partial[0];
  for (unsigned w = 1; w < kWarps; ++w) total = total + partial[w];
  return total;
}

__global__ void layer_norm(const __half* __restrict__ x, const float* __restrict__ gamma,
                           const float* __restrict__ beta, __half* __restrict__ y, unsigned cols) {
  __shared__ float partial[kWarps];
  const unsigned lid = threadIdx.x;
  const unsigned base = blockIdx.x * cols;
  const unsigned per = cols / kThreads;
  float s = 0.0f;
  for (unsigned j = 0; j < per; ++j) s = s + __half2float(x[base + j * kThreads + lid]);
  const float mean = block_sum(s, partial) / static_cast<float>(cols);
  float q = 0.0f;
  for (unsigned j = 0; j < per; ++j) {
    const float d = __half2float(x[base + j * kThreads + lid]) - mean;
    q = fmaf(d, d, q);
  }
  const float rstd = rsqrtf(block_sum(q, partial) / static_cast<float>(cols) + 1e-5f);
  for (unsigned j = 0; j < per; ++j) {
    const unsigned col = j * kThreads + lid;
    const float d = __half2float(x[base + col]) - mean;
    y[base + col] = __float2half_rn(fmaf(d * rstd, gamma[col], beta[col]));
  }
}

}  // namespace

VYRE_TWIN_EXPORT int vyre_twin_k3(vyre_twin_args* args) {
  return twin::run(args, 4, [&](void* const* d, dim3 grid, dim3 block, cudaStream_t s) {
    twin::require(block.x == kThreads, "K3 twin is built for 256 threads. Fix: keep kNormWorkgroup at 256.");
    layer_norm<<<grid, block, 0, s>>>(twin::buffer<const __half>(d, 0), twin::buffer<const float>(d, 1),
                                      twin::buffer<const float>(d, 2), twin::buffer<__half>(d, 3),
                                      static_cast<unsigned>(args->params[1]));
  });
}
