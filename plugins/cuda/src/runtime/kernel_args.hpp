// The parameter table of one kernel launch, laid out as lowering.hpp specifies: buffer pointers,
// element counts, N, tail_guard and (cooperative entries) the grid-barrier pointer, in the order
// KernelEntry::params lists them. Each value lives in its own 8-byte slot; `slots()` is the
// void*[] cuLaunchKernel and graph kernel nodes take.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "lowering.hpp"
#include "runtime/driver_api.hpp"

namespace vyre::cuda {

// What a launch binds, per declared buffer of the program (workgroup buffers: pointer 0).
struct LaunchBindings {
  std::vector<drv::CUdeviceptr> pointers;
  std::vector<std::uint64_t> elements;
  std::uint64_t n = 0;
  bool tail_guard = false;
  std::uint32_t workgroup_base = 0;  // sharded entries: the launch's first WorkgroupId.x
  std::uint32_t grid_x = 0;          // sharded entries: the dispatch's NumWorkgroups.x
  drv::CUdeviceptr grid_barrier = 0;
};

class KernelArgs {
 public:
  // Parameters held without a heap allocation (a launch builds one table per kernel per dispatch);
  // longer tables (programs with more than 10 buffers) use the heap.
  static constexpr std::size_t kInline = 24;

  // Throws vyre::Error: VYRE_ERR_INTERNAL for a parameter naming a buffer the bindings lack, a
  // cooperative entry without barrier memory, or a count the entry's proofs rule out (one other
  // than a declared count; below N, or without the tail guard, for a covering buffer);
  // VYRE_ERR_LIMIT for an element count or N above u32.
  KernelArgs(const KernelEntry& entry, const LaunchBindings& bindings);
  KernelArgs(const KernelArgs& other);
  KernelArgs& operator=(const KernelArgs& other);
  KernelArgs(KernelArgs&& other) noexcept;
  KernelArgs& operator=(KernelArgs&& other) noexcept;

  void** slots() { return heap_ ? heap_slots_.data() : inline_slots_.data(); }
  std::size_t size() const { return size_; }
  // The parameter values (u32 values zero-extended), for comparing launches.
  std::span<const std::uint64_t> values() const {
    return {heap_ ? heap_values_.data() : inline_values_.data(), size_};
  }

 private:
  void assign(std::span<const std::uint64_t> values);  // copy the values in, point the slots at them

  std::size_t size_ = 0;
  bool heap_ = false;
  std::array<std::uint64_t, kInline> inline_values_{};
  std::array<void*, kInline> inline_slots_{};
  std::vector<std::uint64_t> heap_values_;
  std::vector<void*> heap_slots_;
};

// A kernel node of `function` on `grid` x `block` taking `args` (graph nodes: kernel_graph.hpp,
// repeat_launch.hpp); no dynamic shared memory. `args` must outlive the call that adds or updates
// the node (the driver copies the values then).
drv::KernelNodeParams kernel_node_params(drv::CUfunction function, const std::array<std::uint32_t, 3>& grid,
                                         const std::array<std::uint32_t, 3>& block, KernelArgs& args);

}  // namespace vyre::cuda
