// The raw-driver side of case C1 (bench/src/case_c1_process.cpp): a whole process that does what a
// user's hand-written CUDA driver program would for the tiny xor, and nothing else: open libcuda,
// cuInit, the primary context, load the PTX module, upload two 1024-u32 inputs, launch, download,
// check. Prints "ok" and exits 0, or prints why and exits 1. Built as vyre-bench-driver-run.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "driver_kernel.hpp"

int main() {
  using vyre::bench::DriverXorKernel;
  try {
    std::vector<std::uint32_t> a(DriverXorKernel::kElements), b(DriverXorKernel::kElements);
    for (std::uint32_t i = 0; i < DriverXorKernel::kElements; ++i) {
      a[i] = i * 2654435761u;
      b[i] = ~i;
    }
    DriverXorKernel kernel(vyre::bench::open_driver_api(), 0);
    kernel.upload(a, b);
    kernel.launch();
    kernel.finish();
    const std::vector<std::uint32_t> out = kernel.download();
    for (std::uint32_t i = 0; i < DriverXorKernel::kElements; ++i) {
      if (out[i] != (a[i] ^ b[i])) {
        std::printf("wrong: out[%u] = %u, expected %u\n", i, out[i], a[i] ^ b[i]);
        return 1;
      }
    }
    std::printf("ok\n");
    return 0;
  } catch (const vyre::bench::DriverFailure& e) {
    std::printf("%s\n", e.what());
    return 1;
  }
}
