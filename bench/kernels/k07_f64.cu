// K7 twin: exp(x) * log(x + 5) in f64 (kernels.cpp, k7).
#include "twin_common.cuh"

namespace {

__global__ void f64_math(const double* __restrict__ xs, double* __restrict__ out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double x = xs[i];
  out[i] = exp(x) * log(x + 5.0);
}

}  // namespace

VYRE_TWIN_EXPORT int vyre_twin_k7(vyre_twin_args* args) {
  return twin::run(args, 2, [&](void* const* d, dim3 grid, dim3 block, cudaStream_t s) {
    f64_math<<<grid, block, 0, s>>>(twin::buffer<const double>(d, 0), twin::buffer<double>(d, 1),
                                    static_cast<unsigned>(args->params[0]));
  });
}
