// K12 twin: z = fma(a, x, y) over f32, a passed by value (kernels.cpp, k12).
#include <cstring>

#include "twin_common.cuh"

namespace {

__global__ void axpy(float a, const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ z,
                     unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  z[i] = fmaf(a, x[i], y[i]);
}

}  // namespace

VYRE_TWIN_EXPORT int vyre_twin_k12(vyre_twin_args* args) {
  return twin::run(args, 4, [&](void* const* d, dim3 grid, dim3 block, cudaStream_t s) {
    float a = 0;
    const auto bits = static_cast<unsigned>(args->params[1]);
    std::memcpy(&a, &bits, sizeof a);
    axpy<<<grid, block, 0, s>>>(a, twin::buffer<const float>(d, 1), twin::buffer<const float>(d, 2),
                                twin::buffer<float>(d, 3), static_cast<unsigned>(args->params[0]));
  });
}
