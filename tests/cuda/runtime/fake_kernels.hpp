// The fake driver's kernels (fake_driver/fake_cuda.h): what each test program's kernels do, run on
// "device" (host) memory, selected per test case by a FakeScope, which also checks that the fake
// saw no misuse of the driver API while it was alive. Also what every fake-driver test sets up the
// same way: the plugin pointed at the fake, and the fake's live objects compared.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "fake_driver/fake_cuda.h"
#include "test_programs.hpp"

namespace vyre::cudatest {

// Call from a namespace-scope initializer, before anything creates an instance: points the plugin
// at the fake driver (FAKE_CUDA_LIBRARY), clears the variables that change what the plugin does
// (VYRE_CUDA_FAIL, VYRE_CUDA_FORCE_SPLIT_GRID_SYNC, VYRE_CUDA_DISABLE_GRAPHS,
// VYRE_CUDA_DEVICE_ORDINAL, CUDA_CACHE_PATH, VYRE_CUDA_DISABLE_OPTIMIZER) and gives the JIT cache a fresh XDG_CACHE_HOME,
// <build>/<cache_home>, one per test program. Returns true.
bool use_fake_driver(const std::string& cache_home);

// The fake's live objects that differ between `baseline` and `now`, as text ("" when none does).
std::string live_difference(const fake_cuda_stats& baseline, const fake_cuda_stats& now);

class FakeScope {
 public:
  // `rotate_n`: the element count of the rotate program (its kernels read it from nowhere else).
  explicit FakeScope(Kernel kernel, std::uint32_t rotate_n = 0);
  ~FakeScope();  // CHECKs: no violation, every cooperative launch saw a zeroed barrier
  FakeScope(const FakeScope&) = delete;
  FakeScope& operator=(const FakeScope&) = delete;

  static fake_cuda_stats stats();

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace vyre::cudatest
