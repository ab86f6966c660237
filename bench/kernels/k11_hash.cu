// K11 twin: 8 rounds of h ^= rotl(h, 23); h = lo(h*C) ^ hi(h*C) ^ round over u64 keys (kernels.cpp, k11).
#include "twin_common.cuh"

namespace {

constexpr unsigned long long kMultiplier = 0x9E3779B97F4A7C15ull;
constexpr unsigned kRounds = 8;

__global__ void hash(const unsigned long long* __restrict__ keys, unsigned long long* __restrict__ out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long h = keys[i];
  for (unsigned round = 0; round < kRounds; ++round) {
    h ^= (h << 23) | (h >> 41);
    h = (h * kMultiplier) ^ __umul64hi(h, kMultiplier) ^ static_cast<unsigned long long>(round);
  }
  out[i] = h;
}

}  // namespace

VYRE_TWIN_EXPORT int vyre_twin_k11(vyre_twin_args* args) {
  return twin::run(args, 2, [&](void* const* d, dim3 grid, dim3 block, cudaStream_t s) {
    twin::require(args->params[1] == kMultiplier && args->params[2] == kRounds,
                  "K11 twin's constants differ from kernels.cpp. Fix: keep kHashMultiplier and kHashRounds in step.");
    hash<<<grid, block, 0, s>>>(twin::buffer<const unsigned long long>(d, 0), twin::buffer<unsigned long long>(d, 1),
                                static_cast<unsigned>(args->params[0]));
  });
}
