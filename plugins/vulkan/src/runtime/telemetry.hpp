// The Vulkan runtime's counters, reported through metrics_snapshot. Relaxed atomics; `reset`
// zeroes the counters, not the gauges. native_fma_f32/f64: 1 where the device computes fma of that
// width fused (sources 1 and 2), 0 otherwise; fma_source_f32/f64: where the fma comes from:
// 0 emulation (exact integer work), 1 extension (VK_KHR_shader_fma, OpFmaKHR), 2 probe
// (GLSL.std.450 Fma matched the host's std::fma on the probe table at create: codegen/fma_probe.hpp),
// 3 wide (f32 only: computed in f64, plugins/shared/math/algorithms/wide_fma.hpp,
// where the device has f64 but neither 1 nor 2 for f32); fma_probe_f32/f64:
// 0 not run (the extension, no f64, or VYRE_VULKAN_DISABLE_NATIVE_FMA=1), 1 passed, 2 mismatched,
// 3 failed to compile or run; fma_probe_mismatches_f32/f64: the table entries that differed;
// seeded_div_sqrt_f32/f64: 1 where div/sqrt/reciprocal use the seeded algorithms (lowering.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "vyre/plugin_kit.hpp"

namespace vyre::vulkan {

#define VYRE_VK_COUNTERS(X)                               \
  X("programs_compiled", programs_compiled)               \
  X("pipelines_created", pipelines_created)               \
  X("dispatches", dispatches)                             \
  X("resident_dispatches", resident_dispatches)           \
  X("sequences", sequences)                               \
  X("submissions", submissions)                           \
  X("compute_dispatches", compute_dispatches)             \
  X("bytes_in", bytes_in)                                 \
  X("bytes_out", bytes_out)                               \
  X("timed_dispatches", timed_dispatches)                 \
  X("timed_device_ns", timed_device_ns)                   \
  X("resident_allocations", resident_allocations)         \
  X("resident_frees", resident_frees)                     \
  X("command_pools_created", command_pools_created)

#define VYRE_VK_GAUGES(X)                                 \
  X("resident_bytes", resident_bytes)                     \
  X("pipeline_cache_loaded_bytes", pipeline_cache_loaded_bytes) \
  X("native_fma_f32", native_fma_f32)                     \
  X("native_fma_f64", native_fma_f64)                     \
  X("fma_source_f32", fma_source_f32)                     \
  X("fma_source_f64", fma_source_f64)                     \
  X("fma_probe_f32", fma_probe_f32)                       \
  X("fma_probe_f64", fma_probe_f64)                       \
  X("fma_probe_mismatches_f32", fma_probe_mismatches_f32) \
  X("fma_probe_mismatches_f64", fma_probe_mismatches_f64) \
  X("seeded_div_sqrt_f32", seeded_div_sqrt_f32)           \
  X("seeded_div_sqrt_f64", seeded_div_sqrt_f64)

struct Telemetry {
#define VYRE_VK_DECLARE_COUNTER(name, member) std::atomic<std::uint64_t> member{0};
  VYRE_VK_COUNTERS(VYRE_VK_DECLARE_COUNTER)
  VYRE_VK_GAUGES(VYRE_VK_DECLARE_COUNTER)
#undef VYRE_VK_DECLARE_COUNTER

  static void add(std::atomic<std::uint64_t>& counter, std::uint64_t amount = 1) {
    counter.fetch_add(amount, std::memory_order_relaxed);
  }

  std::vector<kit::Counter> snapshot() const {
    std::vector<kit::Counter> out;
#define VYRE_VK_SNAPSHOT(name, member) out.push_back({name, member.load(std::memory_order_relaxed)});
    VYRE_VK_COUNTERS(VYRE_VK_SNAPSHOT)
    VYRE_VK_GAUGES(VYRE_VK_SNAPSHOT)
#undef VYRE_VK_SNAPSHOT
    return out;
  }

  void reset() {
#define VYRE_VK_RESET(name, member) member.store(0, std::memory_order_relaxed);
    VYRE_VK_COUNTERS(VYRE_VK_RESET)
#undef VYRE_VK_RESET
  }
};

}  // namespace vyre::vulkan
