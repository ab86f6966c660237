// The runtime's counters, reported through metrics_snapshot. Every counter is a relaxed atomic, so
// any thread may bump it; `reset` zeroes the counters but not the gauges (live bytes).
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "vyre/plugin_kit.hpp"

namespace vyre::cuda {

// name, member
#define VYRE_CUDA_COUNTERS(X)                          \
  X("dispatches", dispatches)                          \
  X("shard_dispatches", shard_dispatches)              \
  X("mapped_dispatches", mapped_dispatches)            \
  X("kernel_launches", kernel_launches)                \
  X("elementwise_launches", elementwise_launches)      \
  X("cooperative_launches", cooperative_launches)      \
  X("split_grid_sync_dispatches", split_grid_sync)     \
  X("h2d_bytes", h2d_bytes)                            \
  X("h2d_operations", h2d_operations)                  \
  X("d2h_bytes", d2h_bytes)                            \
  X("d2h_operations", d2h_operations)                  \
  X("memset_operations", memset_operations)            \
  X("device_pool_hits", pool_hits)                     \
  X("device_pool_misses", pool_misses)                 \
  X("pinned_pool_hits", pinned_hits)                   \
  X("pinned_pool_misses", pinned_misses)               \
  X("ptx_cache_hits", ptx_hits)                        \
  X("ptx_cache_misses", ptx_misses)                    \
  X("module_cache_hits", module_hits)                  \
  X("module_cache_misses", module_misses)              \
  X("timed_dispatches", timed_dispatches)              \
  X("timed_wall_ns", timed_wall_ns)                    \
  X("timed_device_ns", timed_device_ns)                \
  X("timed_enqueue_ns", timed_enqueue_ns)              \
  X("timed_wait_ns", timed_wait_ns)                    \
  X("sync_points", sync_points)                        \
  X("graph_builds", graph_builds)                      \
  X("graph_updates", graph_updates)                    \
  X("graph_launches", graph_launches)                  \
  X("graph_fallbacks", graph_fallbacks)                \
  X("repeat_graph_builds", repeat_graph_builds)        \
  X("repeat_graph_launches", repeat_graph_launches)    \
  X("resident_allocations", resident_allocations)      \
  X("resident_frees", resident_frees)                  \
  X("resident_imports", resident_imports)

#define VYRE_CUDA_GAUGES(X)                            \
  X("resident_bytes_live", resident_bytes_live)        \
  X("device_pool_idle_bytes", device_pool_idle_bytes)  \
  X("device_bytes_allocated", device_bytes_allocated)

struct Telemetry {
#define VYRE_CUDA_DECLARE_COUNTER(name, member) std::atomic<std::uint64_t> member{0};
  VYRE_CUDA_COUNTERS(VYRE_CUDA_DECLARE_COUNTER)
  VYRE_CUDA_GAUGES(VYRE_CUDA_DECLARE_COUNTER)
#undef VYRE_CUDA_DECLARE_COUNTER

  static void add(std::atomic<std::uint64_t>& counter, std::uint64_t amount = 1) {
    counter.fetch_add(amount, std::memory_order_relaxed);
  }
  static void sub(std::atomic<std::uint64_t>& counter, std::uint64_t amount) {
    counter.fetch_sub(amount, std::memory_order_relaxed);
  }

  std::vector<kit::Counter> snapshot() const;
  void reset();
};

}  // namespace vyre::cuda
