// K13 twin: out = max over k < 8 of f(x (1 - k/256)) over f32, for one function of CUDA's precise
// math library per launch (kernels.cpp, kK13Evaluations); the function index is params[1], in the
// order of kernels.cpp's math_functions().
#include "twin_common.cuh"

namespace {

template <int F>
__device__ float apply(float x) {
  if constexpr (F == 0) return sinf(x);
  else if constexpr (F == 1) return cosf(x);
  else if constexpr (F == 2) return tanf(x);
  else if constexpr (F == 3) return expf(x);
  else if constexpr (F == 4) return exp2f(x);
  else if constexpr (F == 5) return logf(x);
  else if constexpr (F == 6) return log2f(x);
  else if constexpr (F == 7) return tanhf(x);
  else if constexpr (F == 8) return atanf(x);
  else if constexpr (F == 9) return asinf(x);
  else if constexpr (F == 10) return acosf(x);
  else if constexpr (F == 11) return sinhf(x);
  else if constexpr (F == 12) return coshf(x);
  else if constexpr (F == 13) return sqrtf(x);
  else if constexpr (F == 14) return rsqrtf(x);
  else return 1.0f / x;
}

constexpr int kFunctions = 16;
constexpr int kEvaluations = 8;  // kK13Evaluations in kernels.hpp

template <int F>
__global__ void math(const float* __restrict__ x, float* __restrict__ out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x0 = x[i];
  float m = apply<F>(x0);
  for (int k = 1; k < kEvaluations; ++k) m = fmaxf(m, apply<F>(x0 * (1.0f - k * 0.00390625f)));
  out[i] = m;
}

template <int F>
void launch(int f, const float* x, float* out, unsigned n, dim3 grid, dim3 block, cudaStream_t s) {
  if constexpr (F < kFunctions) {
    if (f == F) math<F><<<grid, block, 0, s>>>(x, out, n);
    else launch<F + 1>(f, x, out, n, grid, block, s);
  }
}

}  // namespace

VYRE_TWIN_EXPORT int vyre_twin_k13(vyre_twin_args* args) {
  return twin::run(args, 2, [&](void* const* d, dim3 grid, dim3 block, cudaStream_t s) {
    twin::require(args->params[1] < kFunctions, "K13 function index out of range. Fix: keep math_functions() and k13_math.cu in step.");
    launch<0>(static_cast<int>(args->params[1]), twin::buffer<const float>(d, 0), twin::buffer<float>(d, 1),
              static_cast<unsigned>(args->params[0]), grid, block, s);
  });
}
