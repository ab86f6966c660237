// Every check a kernel launch makes before the driver call, as pure functions over the probed
// device limits: null function, stream or argument slot, geometry against the device (block and
// grid axes, threads per block, the function's own thread limit, shared memory), overflowing
// dimension products, and cooperative residency. Each failure is a vyre::Error with a Fix.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "runtime/device_info.hpp"
#include "runtime/driver_api.hpp"

namespace vyre::cuda {

using Dims = std::array<std::uint32_t, 3>;

struct LaunchRequest {
  std::string_view kernel;           // entry name, for messages
  drv::CUfunction function = nullptr;
  drv::CUstream stream = nullptr;
  void** args = nullptr;             // one slot per kernel parameter
  std::size_t arg_count = 0;
  Dims grid{1, 1, 1};
  Dims block{1, 1, 1};
  std::uint64_t shared_bytes = 0;          // static shared memory of the function
  std::uint32_t function_max_threads = 0;  // the function's thread limit; 0 = unknown
  bool cooperative = false;
  std::uint64_t resident_capacity = 0;     // cooperative: blocks that fit co-resident
};

// Product of three axes; throws VYRE_ERR_LIMIT naming `label` when it overflows u64.
std::uint64_t dims_product(std::string_view label, const Dims& dims);

// Block/grid axes, threads per block (device and function), shared memory. Throws VYRE_ERR_LIMIT
// (VYRE_ERR_INVALID_ARGUMENT for a zero axis).
void check_geometry(const DeviceInfo& device, std::string_view kernel, const Dims& grid,
                    const Dims& block, std::uint64_t shared_bytes,
                    std::uint32_t function_max_threads);

// Blocks that fit co-resident: blocks_per_sm (from the occupancy calculator) * SM count. Throws
// VYRE_ERR_INTERNAL for a negative count, VYRE_ERR_LIMIT on overflow.
std::uint64_t cooperative_capacity(long long blocks_per_sm, std::uint32_t multiprocessors);

// Throws VYRE_ERR_LIMIT unless every block of `grid` fits co-resident.
void check_cooperative_residency(std::string_view kernel, const Dims& grid, const Dims& block,
                                 std::uint64_t resident_capacity);

// All of the above for one launch, plus the handle and argument-table checks.
void validate_launch(const DeviceInfo& device, const LaunchRequest& request);

}  // namespace vyre::cuda
