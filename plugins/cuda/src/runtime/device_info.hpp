// What the runtime knows about its device: probed once at create, then used for every launch
// check and reported through device_profile.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "runtime/driver_api.hpp"
#include "vyre/backend_abi.h"

namespace vyre::cuda {

class Driver;

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  std::uint32_t compute_major = 0;
  std::uint32_t compute_minor = 0;
  std::uint32_t driver_version = 0;
  std::uint32_t multiprocessors = 0;
  std::uint64_t total_memory_bytes = 0;
  std::uint32_t warp_size = 32;
  std::uint32_t max_threads_per_block = 1024;
  std::array<std::uint32_t, 3> max_block{1024, 1024, 64};
  std::array<std::uint32_t, 3> max_grid{2147483647u, 65535u, 65535u};
  std::uint64_t shared_memory_per_block = 48 * 1024;
  std::uint64_t shared_memory_per_block_optin = 48 * 1024;
  std::uint64_t shared_memory_per_multiprocessor = 0;
  std::uint32_t registers_per_block = 0;
  std::uint32_t registers_per_multiprocessor = 0;
  std::uint32_t max_threads_per_multiprocessor = 0;
  std::uint32_t max_blocks_per_multiprocessor = 0;
  std::uint64_t l2_cache_bytes = 0;
  std::uint32_t memory_clock_khz = 0;
  std::uint32_t memory_bus_width_bits = 0;
  bool cooperative_launch = false;
  // Kernels can use pinned host memory at its host address (mapped host memory with unified
  // addressing): small elementwise host dispatches run on their staging memory directly.
  bool maps_host_memory = false;

  std::uint32_t sm() const { return compute_major * 10 + compute_minor; }
  // 2 (double data rate) * clock * bus width / 8, in GB/s.
  double memory_bandwidth_gbps() const;
};

// Query every attribute above for `device` (one driver round trip per attribute, once per create).
DeviceInfo probe_device(const Driver& driver, drv::CUdevice device, int ordinal);

// Fill a full-size vyre_device_profile; `target` is the code generation target ("sm_90").
void fill_profile(const DeviceInfo& info, const std::string& target, vyre_device_profile& out);

}  // namespace vyre::cuda
