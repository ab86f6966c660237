// Fault injection on the GPU (label gpu; exits 77 without a device): the fault table of
// fault_table.hpp against the real driver, through the test build's fault plugin
// (tests/cuda/fault_plugin/libvyre_cuda.so). The leak check is the device's free memory
// (cuMemGetInfo) after each row's instance is gone, against the free memory before the table.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "fault_table.hpp"
#include "gpu_support.hpp"

namespace {

using namespace vyre::cudatest;  // test file: helpers of this suite

const bool kClean = [] {
  unsetenv("VYRE_CUDA_FAIL");
  unsetenv("VYRE_CUDA_DISABLE_GRAPHS");
  return true;
}();
const bool kGpu = require_gpu(fault_plugin_path());

vyre::host::Backend open_fault() { return open_plugin_file(fault_plugin_path()); }

// Held for the whole run: it keeps the primary context, and call counters are read through it.
const vyre::host::Backend& observer() {
  static const vyre::host::Backend backend = open_fault();
  return backend;
}

// Driver-internal allocations may come and go; a leaked pool block or buffer is at least this.
constexpr std::uint64_t kToleranceBytes = 64ull << 20;

}  // namespace

TEST_CASE("every hookable driver function x every representative operation on the GPU") {
  const std::uint64_t free_before = metric(observer(), "device_memory_free_bytes");
  std::uint64_t lowest = free_before;
  FaultTableHooks hooks;
  hooks.open = open_fault;
  hooks.leaks = [&]() -> std::string {
    const std::uint64_t free_now = metric(observer(), "device_memory_free_bytes");
    lowest = std::min(lowest, free_now);
    if (free_now + kToleranceBytes >= free_before) return "";
    return "device memory free " + std::to_string(free_before) + " -> " + std::to_string(free_now);
  };
  const auto ops = representative_fault_ops();
  const FaultTableReport report = run_fault_table(ops, observer(), hooks);
  const std::uint64_t free_after = metric(observer(), "device_memory_free_bytes");
  std::cout << "fault table (GPU): " << report.rows << " rows, " << report.errors << " errors, " << report.absorbed
            << " absorbed, " << report.not_fired << " not fired, " << report.failures.size() << " failures\n"
            << "device memory free: " << free_before << " before, " << free_after << " after, lowest between rows "
            << lowest << "\n";
  for (const auto& failure : report.failures) std::cout << "FAILED ROW: " << failure << "\n";
  std::cout << std::flush;
  CHECK(report.failures.empty());
  CHECK(report.rows >= 300);
  CHECK(free_after + kToleranceBytes >= free_before);
  for (const std::string& function : hookable_functions(observer())) {
    CAPTURE(function);
    CHECK(report.fired.count(function) == 1);
  }
}
