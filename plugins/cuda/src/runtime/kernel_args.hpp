// The parameter table of one kernel launch, laid out as lowering.hpp specifies: buffer pointers,
// element counts, N, tail_guard and (cooperative entries) the grid-barrier pointer, in the order
// KernelEntry::params lists them. Each value lives in its own 8-byte slot; `slots()` is the
// void*[] cuLaunchKernel and graph kernel nodes take.
#pragma once

#include <cstddef>
#include <cstdint>
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
  drv::CUdeviceptr grid_barrier = 0;
};

class KernelArgs {
 public:
  // Throws vyre::Error: VYRE_ERR_INTERNAL for a parameter naming a buffer the bindings lack or a
  // cooperative entry without barrier memory; VYRE_ERR_LIMIT for an element count or N above u32.
  KernelArgs(const KernelEntry& entry, const LaunchBindings& bindings);
  KernelArgs(const KernelArgs& other);
  KernelArgs& operator=(const KernelArgs& other);
  KernelArgs(KernelArgs&&) noexcept = default;
  KernelArgs& operator=(KernelArgs&&) noexcept = default;

  void** slots() { return pointers_.data(); }
  std::size_t size() const { return values_.size(); }
  // The parameter values (u32 values zero-extended), for comparing launches.
  const std::vector<std::uint64_t>& values() const { return values_; }

 private:
  void point_slots();

  std::vector<std::uint64_t> values_;
  std::vector<void*> pointers_;
};

}  // namespace vyre::cuda
