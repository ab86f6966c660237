// K5 twin: 5-point Laplacian over a w x h f32 grid, 32x8 blocks; the border copies the input
// (kernels.cpp, k5).
#include "twin_common.cuh"

namespace {

__global__ void stencil(const float* __restrict__ in, float* __restrict__ out, unsigned w, unsigned h) {
  const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  const unsigned i = y * w + x;
  if (x > 0 && x < w - 1 && y > 0 && y < h - 1) {
    const float around = (in[i - w] + in[i + w]) + (in[i - 1] + in[i + 1]);
    out[i] = fmaf(in[i], -4.0f, around);
  } else {
    out[i] = in[i];
  }
}

}  // namespace

VYRE_TWIN_EXPORT int vyre_twin_k5(vyre_twin_args* args) {
  return twin::run(args, 2, [&](void* const* d, dim3 grid, dim3 block, cudaStream_t s) {
    stencil<<<grid, block, 0, s>>>(twin::buffer<const float>(d, 0), twin::buffer<float>(d, 1),
                                   static_cast<unsigned>(args->params[0]), static_cast<unsigned>(args->params[1]));
  });
}
