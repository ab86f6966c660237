#include "runtime/launch_checks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vyre/error.hpp"

namespace vyre::cuda {
namespace {

constexpr const char* kRebuildArgsFix =
    "this is a bug in the vyre CUDA runtime: the argument table must hold one live slot per kernel "
    "parameter; report it with the program";

void check_handles(const LaunchRequest& request) {
  if (request.function == nullptr) {
    fail(VYRE_ERR_INTERNAL, fmt::format("Launch of `{}` has a null CUfunction", request.kernel),
         "this is a bug in the vyre CUDA runtime: load the module and resolve the entry before "
         "launching; report it with the program");
  }
  if (request.stream == nullptr) {
    fail(VYRE_ERR_INTERNAL, fmt::format("Launch of `{}` has a null stream", request.kernel),
         "this is a bug in the vyre CUDA runtime: launches use pooled non-blocking streams, never "
         "the legacy default stream; report it");
  }
  if (request.args == nullptr || request.arg_count == 0) {
    fail(VYRE_ERR_INTERNAL, fmt::format("Launch of `{}` has an empty argument table", request.kernel),
         kRebuildArgsFix);
  }
  for (std::size_t slot = 0; slot < request.arg_count; ++slot) {
    if (request.args[slot] == nullptr) {
      fail(VYRE_ERR_INTERNAL,
           fmt::format("Launch of `{}` has a null argument slot at index {}", request.kernel, slot),
           kRebuildArgsFix);
    }
  }
}

}  // namespace

std::uint64_t dims_product(std::string_view label, const Dims& dims) {
  std::uint64_t product = 1;
  for (std::uint32_t axis : dims) {
    if (axis != 0 && product > UINT64_MAX / axis) {
      fail(VYRE_ERR_LIMIT, fmt::format("The {} dimensions {} overflow u64 when multiplied", label, dims),
           "split the dispatch into smaller launches");
    }
    product *= axis;
  }
  return product;
}

void check_geometry(const DeviceInfo& device, std::string_view kernel, const Dims& grid,
                    const Dims& block, std::uint64_t shared_bytes,
                    std::uint32_t function_max_threads) {
  const char* axis_names[3] = {"x", "y", "z"};
  for (int axis = 0; axis < 3; ++axis) {
    if (grid[axis] == 0 || block[axis] == 0) {
      fail(VYRE_ERR_INVALID_ARGUMENT,
           fmt::format("Launch of `{}` has a zero axis: grid {}, workgroup {}", kernel, grid, block),
           "every grid and workgroup axis must be at least 1 (an empty dispatch launches nothing)");
    }
    if (block[axis] > device.max_block[axis]) {
      fail(VYRE_ERR_LIMIT,
           fmt::format("Launch of `{}`: workgroup {} axis {} is {}, above the device limit {} ({})",
                       kernel, block, axis_names[axis], block[axis], device.max_block[axis], device.name),
           fmt::format("use a workgroup within {} per axis", device.max_block));
    }
    if (grid[axis] > device.max_grid[axis]) {
      fail(VYRE_ERR_LIMIT,
           fmt::format("Launch of `{}`: grid {} axis {} is {}, above the device limit {} ({})", kernel,
                       grid, axis_names[axis], grid[axis], device.max_grid[axis], device.name),
           fmt::format("use a grid within {} per axis: set config.grid explicitly or use a larger "
                       "workgroup",
                       device.max_grid));
    }
  }
  dims_product("grid", grid);
  const std::uint64_t threads = dims_product("workgroup", block);
  if (threads > device.max_threads_per_block) {
    fail(VYRE_ERR_LIMIT,
         fmt::format("Launch of `{}`: workgroup {} has {} invocations, above the device limit of {} "
                     "per block ({})",
                     kernel, block, threads, device.max_threads_per_block, device.name),
         fmt::format("use a workgroup of at most {} invocations", device.max_threads_per_block));
  }
  if (function_max_threads != 0 && threads > function_max_threads) {
    fail(VYRE_ERR_LIMIT,
         fmt::format("Launch of `{}`: workgroup {} has {} invocations, but the compiled kernel's "
                     "register use allows at most {} per block",
                     kernel, block, threads, function_max_threads),
         fmt::format("use a workgroup of at most {} invocations for this program", function_max_threads));
  }
  if (shared_bytes > device.shared_memory_per_block) {
    fail(VYRE_ERR_LIMIT,
         fmt::format("Launch of `{}` needs {} bytes of workgroup memory; the device allows {} per "
                     "block ({})",
                     kernel, shared_bytes, device.shared_memory_per_block, device.name),
         "declare smaller workgroup buffers");
  }
}

std::uint64_t cooperative_capacity(long long blocks_per_sm, std::uint32_t multiprocessors) {
  if (blocks_per_sm < 0) {
    fail(VYRE_ERR_INTERNAL,
         fmt::format("The occupancy calculator returned {} blocks per multiprocessor", blocks_per_sm),
         "report this driver behaviour with the device name and driver version");
  }
  const auto per_sm = static_cast<std::uint64_t>(blocks_per_sm);
  if (multiprocessors != 0 && per_sm > UINT64_MAX / multiprocessors) {
    fail(VYRE_ERR_LIMIT,
         fmt::format("Cooperative residency overflows: {} blocks/SM x {} SMs", per_sm, multiprocessors),
         "report the device's reported limits");
  }
  return per_sm * multiprocessors;
}

void check_cooperative_residency(std::string_view kernel, const Dims& grid, const Dims& block,
                                 std::uint64_t resident_capacity) {
  const std::uint64_t blocks = dims_product("grid", grid);
  if (resident_capacity != 0 && blocks <= resident_capacity) return;
  fail(VYRE_ERR_LIMIT,
       fmt::format("Cooperative launch of `{}` needs all {} workgroups of grid {} co-resident, but "
                   "at workgroup {} at most {} fit on the device",
                   kernel, blocks, grid, block, resident_capacity),
       "use a smaller grid or workgroup, or let the runtime run the grid_sync phases as separate "
       "launches (it does so when the grid does not fit)");
}

void validate_launch(const DeviceInfo& device, const LaunchRequest& request) {
  check_handles(request);
  check_geometry(device, request.kernel, request.grid, request.block, request.shared_bytes,
                 request.function_max_threads);
  if (request.cooperative) {
    if (!device.cooperative_launch) {
      fail(VYRE_ERR_LIMIT,
           fmt::format("Cooperative launch of `{}` on {}, which does not support cooperative launches",
                       request.kernel, device.name),
           "run the grid_sync phases as separate launches (VYRE_CUDA_FORCE_SPLIT_GRID_SYNC=1)");
    }
    check_cooperative_residency(request.kernel, request.grid, request.block,
                                request.resident_capacity);
  }
}

}  // namespace vyre::cuda
