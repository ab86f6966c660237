// K1 twin: tiled f32 matmul, 16x16 tiles in shared memory, fmaf in k order (kernels.cpp, k1).
#include "twin_common.cuh"

namespace {

constexpr unsigned kTile = 16;

__global__ void matmul(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, unsigned n) {
  __shared__ float a_tile[kTile * kTile];
  __shared__ float b_tile[kTile * kTile];
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  const unsigned row = blockIdx.y * kTile + ty;
  const unsigned col = blockIdx.x * kTile + tx;
  float acc = 0.0f;
  for (unsigned t = 0; t < n / kTile; ++t) {
    a_tile[ty * kTile + tx] = a[row * n + t * kTile + tx];
    b_tile[ty * kTile + tx] = b[(t * kTile + ty) * n + col];
    __syncthreads();
    for (unsigned k = 0; k < kTile; ++k) acc = fmaf(a_tile[ty * kTile + k], b_tile[k * kTile + tx], acc);
    __syncthreads();
  }
  c[row * n + col] = acc;
}

}  // namespace

VYRE_TWIN_EXPORT uint32_t vyre_twin_abi_version(void) { return VYRE_TWIN_ABI_VERSION; }

VYRE_TWIN_EXPORT int vyre_twin_k1(vyre_twin_args* args) {
  return twin::run(args, 3, [&](void* const* d, dim3 grid, dim3 block, cudaStream_t s) {
    matmul<<<grid, block, 0, s>>>(twin::buffer<const float>(d, 0), twin::buffer<const float>(d, 1),
                                  twin::buffer<float>(d, 2), static_cast<unsigned>(args->params[0]));
  });
}
