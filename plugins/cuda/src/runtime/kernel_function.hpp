// One loaded kernel entry: the driver's function handle, the emitter's description of it, and the
// resource attributes the driver reports (used for launch checks and cooperative residency).
#pragma once

#include <cstdint>

#include "lowering.hpp"
#include "runtime/driver_api.hpp"

namespace vyre::cuda {

struct KernelFunction {
  drv::CUfunction function = nullptr;
  KernelEntry entry;
  std::uint32_t max_threads_per_block = 0;  // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
  std::uint64_t static_shared_bytes = 0;    // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
  std::uint32_t registers = 0;              // per thread
  std::uint64_t local_bytes = 0;            // per thread (spills)
};

}  // namespace vyre::cuda
