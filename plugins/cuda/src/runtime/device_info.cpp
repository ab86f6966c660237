#include "runtime/device_info.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "runtime/driver.hpp"

namespace vyre::cuda {
namespace {

std::uint32_t attribute(const Driver& driver, drv::CUdevice device, int which, const char* what) {
  int value = 0;
  driver.check(driver.cuDeviceGetAttribute(&value, which, device), fmt::format("cuDeviceGetAttribute({})", what));
  return value < 0 ? 0u : static_cast<std::uint32_t>(value);
}

void copy_text(char* dst, std::size_t capacity, const std::string& text) {
  const std::size_t n = std::min(capacity - 1, text.size());
  std::memcpy(dst, text.data(), n);
  dst[n] = '\0';
}

}  // namespace

double DeviceInfo::memory_bandwidth_gbps() const {
  return 2.0 * static_cast<double>(memory_clock_khz) * 1e3 *
         static_cast<double>(memory_bus_width_bits) / 8.0 / 1e9;
}

DeviceInfo probe_device(const Driver& driver, drv::CUdevice device, int ordinal) {
  DeviceInfo info;
  info.ordinal = ordinal;
  char name[256] = {};
  driver.check(driver.cuDeviceGetName(name, sizeof(name) - 1, device), "cuDeviceGetName");
  info.name = name;
  std::size_t total = 0;
  driver.check(driver.cuDeviceTotalMem(&total, device), "cuDeviceTotalMem");
  info.total_memory_bytes = total;
  info.driver_version = static_cast<std::uint32_t>(driver.version());

  using namespace drv;  // attribute names only, inside this function
  auto get = [&](int which, const char* what) { return attribute(driver, device, which, what); };
  info.compute_major = get(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "compute capability major");
  info.compute_minor = get(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "compute capability minor");
  info.multiprocessors = get(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "multiprocessor count");
  info.warp_size = get(CU_DEVICE_ATTRIBUTE_WARP_SIZE, "warp size");
  info.max_threads_per_block = get(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "max threads per block");
  info.max_block = {get(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, "max block x"),
                    get(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, "max block y"),
                    get(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, "max block z")};
  info.max_grid = {get(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, "max grid x"),
                   get(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, "max grid y"),
                   get(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, "max grid z")};
  info.shared_memory_per_block = get(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "shared per block");
  info.shared_memory_per_block_optin =
      get(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "opt-in shared per block");
  info.shared_memory_per_multiprocessor =
      get(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, "shared per multiprocessor");
  info.registers_per_block = get(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, "registers per block");
  info.registers_per_multiprocessor =
      get(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, "registers per multiprocessor");
  info.max_threads_per_multiprocessor =
      get(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, "threads per multiprocessor");
  info.max_blocks_per_multiprocessor =
      get(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, "blocks per multiprocessor");
  info.l2_cache_bytes = get(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2 cache size");
  info.memory_clock_khz = get(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, "memory clock rate");
  info.memory_bus_width_bits = get(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, "memory bus width");
  info.cooperative_launch = get(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, "cooperative launch") != 0;
  info.maps_host_memory = get(CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, "can map host memory") != 0 &&
                          get(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, "unified addressing") != 0;
  return info;
}

void fill_profile(const DeviceInfo& info, const std::string& target, vyre_device_profile& out) {
  out.kind = VYRE_DEVICE_KIND_GPU;
  copy_text(out.name, sizeof(out.name), info.name);
  copy_text(out.target, sizeof(out.target), target);
  out.compute_major = info.compute_major;
  out.compute_minor = info.compute_minor;
  out.driver_version = info.driver_version;
  out.multiprocessors = info.multiprocessors;
  out.total_memory_bytes = info.total_memory_bytes;
  out.subgroup_width = info.warp_size;
  out.max_threads_per_workgroup = info.max_threads_per_block;
  for (int axis = 0; axis < 3; ++axis) {
    out.max_workgroup_size[axis] = info.max_block[axis];
    out.max_grid_size[axis] = info.max_grid[axis];
  }
  out.shared_memory_per_workgroup = info.shared_memory_per_block;
  out.shared_memory_per_multiprocessor = info.shared_memory_per_multiprocessor;
  out.registers_per_workgroup = info.registers_per_block;
  out.registers_per_multiprocessor = info.registers_per_multiprocessor;
  out.l2_cache_bytes = info.l2_cache_bytes;
  out.memory_clock_khz = info.memory_clock_khz;
  out.memory_bus_width_bits = info.memory_bus_width_bits;
  out.memory_bandwidth_gbps = info.memory_bandwidth_gbps();
  out.cooperative_launch = info.cooperative_launch ? 1 : 0;
  // resident_import: the widest scalar element (8 bytes); the 16-byte vector path of elementwise
  // entries checks its own alignment at run time.
  out.external_alignment = 8;
}

}  // namespace vyre::cuda
