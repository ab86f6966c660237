// K6 twin: sin(x)exp(x/4) + cos(x)tanh(x) + log(1+|x|)atan(x) in f32 with CUDA's precise libm
// (kernels.cpp, k6).
#include "twin_common.cuh"

namespace {

__global__ void mix(const float* __restrict__ xs, float* __restrict__ out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = xs[i];
  const float t3 = logf(1.0f + fabsf(x)) * atanf(x);
  const float t2 = fmaf(cosf(x), tanhf(x), t3);
  out[i] = fmaf(sinf(x), expf(x * 0.25f), t2);
}

}  // namespace

VYRE_TWIN_EXPORT int vyre_twin_k6(vyre_twin_args* args) {
  return twin::run(args, 2, [&](void* const* d, dim3 grid, dim3 block, cudaStream_t s) {
    mix<<<grid, block, 0, s>>>(twin::buffer<const float>(d, 0), twin::buffer<float>(d, 1),
                               static_cast<unsigned>(args->params[0]));
  });
}
