// The fake driver's kernels (fake_driver/fake_cuda.h): what each test program's kernels do, run on
// "device" (host) memory, selected per test case by a FakeScope, which also checks that the fake
// saw no misuse of the driver API while it was alive.
#pragma once

#include <cstdint>
#include <mutex>

#include "fake_driver/fake_cuda.h"
#include "test_programs.hpp"

namespace vyre::cudatest {

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
