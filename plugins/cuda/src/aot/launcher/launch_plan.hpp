// How a bundle launches on one device: which image to load, which kernels run in which order,
// cooperatively or not, and each launch's checks against the device limits. Pure functions of the
// manifest and the queried limits, so they are tested without a device.
#pragma once

#include <cstdint>
#include <vector>

#include "cuda_driver.hpp"
#include "manifest.hpp"

namespace vyre_launch {

// Throw when the device cannot run code built for the bundle's target (older than the target).
void check_device_target(const Manifest& manifest, const cuda::DeviceLimits& device);

// Whether the bundle's cubin runs on this device (same major, minor at least the target's).
bool cubin_runs_on(const Manifest& manifest, const cuda::DeviceLimits& device);

// Throw when launching `entry` with the manifest's geometry exceeds a device limit: block and grid
// axes, invocations per block (also the compiled function's own limit, when non-zero), shared
// memory per block.
void check_launch_limits(const Manifest& manifest, const Entry& entry, const cuda::DeviceLimits& device,
                         std::uint32_t function_max_threads);

struct LaunchPlan {
  std::vector<const Entry*> kernels;  // launched in this order, fixpoint_iterations times per step
  bool cooperative = false;           // the one kernel is launched cooperatively
};

// The plan: the entry point alone; for a cooperative bundle, the entry point cooperatively when the
// device supports it, the grid fits `resident_capacity` co-resident workgroups and no split is
// forced, else its phase entries in order. Throws when neither is possible.
LaunchPlan plan_launch(const Manifest& manifest, const cuda::DeviceLimits& device, std::uint64_t resident_capacity,
                       bool force_split);

// Kernel argument values for `entry`, one per parameter, in order; 4-byte parameters hold their
// value in the low 32 bits. `pointers[i]` is buffer i's device pointer (0 for workgroup buffers).
std::vector<std::uint64_t> kernel_argument_values(const Manifest& manifest, const Entry& entry,
                                                  const std::vector<cuda::CUdeviceptr>& pointers,
                                                  cuda::CUdeviceptr grid_barrier);

}  // namespace vyre_launch
