#include "runtime/runtime.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "runtime/device_select.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/jit_cache.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda {
namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
constexpr std::size_t kGraphCacheCapacity = 32;

std::string gib(std::uint64_t bytes) {
  return fmt::format("{} bytes ({:.2f} GiB)", bytes, static_cast<double>(bytes) / static_cast<double>(kGiB));
}

}  // namespace

Target target_for_device(const DeviceInfo& device) {
  return Target{std::min<std::uint32_t>(device.sm(), 90)};
}

bool env_flag(const char* value) {
  if (value == nullptr) return false;
  std::string text(value);
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text == "1" || text == "true" || text == "yes" || text == "on";
}

std::shared_ptr<Runtime> Runtime::open(const vyre::CreateOptions& options) {
  fault::check_environment();  // a malformed VYRE_CUDA_FAIL fails here, before the driver loads
  const int ordinal = choose_device_ordinal(options.device_ordinal, std::getenv(kDeviceOrdinalEnv));
  prepare_jit_cache();  // before cuInit, so the driver sees CUDA_CACHE_PATH
  const Driver& driver = Driver::open();
  int visible = 0;
  const drv::CUresult counted = driver.cuDeviceGetCount(&visible);
  if (counted != drv::CUDA_SUCCESS) {
    fail(VYRE_ERR_NO_DEVICE, "cuDeviceGetCount failed: " + driver.describe(counted),
         "run `nvidia-smi`, and check CUDA_VISIBLE_DEVICES and the container's GPU access");
  }
  check_device_visible(ordinal, visible);
  drv::CUdevice device = 0;
  const drv::CUresult got = driver.cuDeviceGet(&device, ordinal);
  if (got != drv::CUDA_SUCCESS) {
    fail(VYRE_ERR_NO_DEVICE, fmt::format("cuDeviceGet({}) failed: {}", ordinal, driver.describe(got)),
         "check that the device is healthy (nvidia-smi)");
  }
  DeviceInfo info = probe_device(driver, device, ordinal);
  return std::shared_ptr<Runtime>(new Runtime(driver, device, std::move(info), options));
}

Runtime::Runtime(const Driver& driver, drv::CUdevice device, DeviceInfo info,
                 const vyre::CreateOptions& options)
    : driver_(driver),
      device_(std::move(info)),
      context_(driver, device),
      force_split_grid_sync_(env_flag(std::getenv(kForceSplitGridSyncEnv))),
      elementwise_entries_(!env_flag(std::getenv(kDisableElementwiseEnv))),
      mapped_host_dispatch_(device_.maps_host_memory && !env_flag(std::getenv(kDisableMappedHostEnv))),
      memory_budget_bytes_(options.memory_budget_bytes),
      streams_(context_),
      events_(context_),
      device_memory_("device memory", device_hooks(context_, telemetry_),
                     std::min<std::uint64_t>(device_.total_memory_bytes / 4, 4 * kGiB)),
      staging_("pinned host memory", staging_hooks(context_, telemetry_), kGiB / 2),
      deferred_(context_),
      modules_(context_, telemetry_, target_for_device(device_), !env_flag(std::getenv(kDisableOptimizerEnv))),
      graphs_(kGraphCacheCapacity),
      repeats_(context_, telemetry_) {
  context_.bind();
}

Runtime::~Runtime() {
  context_.bind_quietly();  // teardown continues regardless: each member releases what it can
  graphs_.clear();
  repeats_.clear();
}

BlockPoolHooks Runtime::device_hooks(const Context& context, Telemetry& telemetry) {
  BlockPoolHooks hooks;
  hooks.call = "cuMemAlloc";
  hooks.allocate = [&context](std::uint64_t bytes) -> std::uint64_t {
    context.bind();
    drv::CUdeviceptr ptr = 0;
    const drv::CUresult result = context.driver().cuMemAlloc(&ptr, bytes);
    if (result == drv::CUDA_ERROR_OUT_OF_MEMORY) return 0;
    context.driver().check(result, "cuMemAlloc");
    return ptr;
  };
  hooks.free = [&context](std::uint64_t address) {
    context.bind_quietly();
    context.driver().cuMemFree(address);
  };
  hooks.describe_available = [&context]() {
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    context.driver().cuMemGetInfo(&free_bytes, &total_bytes);
    return fmt::format("{} free of {}", gib(free_bytes), gib(total_bytes));
  };
  hooks.hits = &telemetry.pool_hits;
  hooks.misses = &telemetry.pool_misses;
  hooks.idle_gauge = &telemetry.device_pool_idle_bytes;
  hooks.allocated_gauge = &telemetry.device_bytes_allocated;
  return hooks;
}

BlockPoolHooks Runtime::staging_hooks(const Context& context, Telemetry& telemetry) {
  BlockPoolHooks hooks;
  hooks.call = "cuMemHostAlloc";
  hooks.allocate = [&context](std::uint64_t bytes) -> std::uint64_t {
    context.bind();
    void* ptr = nullptr;
    // DEVICEMAP: kernels may use staging memory directly (mapped host dispatch; with unified
    // addressing its device address is its host address).
    const drv::CUresult result = context.driver().cuMemHostAlloc(
        &ptr, bytes, drv::CU_MEMHOSTALLOC_PORTABLE | drv::CU_MEMHOSTALLOC_DEVICEMAP);
    if (result == drv::CUDA_ERROR_OUT_OF_MEMORY) return 0;
    context.driver().check(result, "cuMemHostAlloc");
    return reinterpret_cast<std::uintptr_t>(ptr);
  };
  hooks.free = [&context](std::uint64_t address) {
    context.bind_quietly();
    context.driver().cuMemFreeHost(reinterpret_cast<void*>(static_cast<std::uintptr_t>(address)));
  };
  hooks.describe_available = []() { return std::string("pinned host memory is exhausted"); };
  hooks.hits = &telemetry.pinned_hits;
  hooks.misses = &telemetry.pinned_misses;
  return hooks;
}

std::pair<std::uint64_t, std::uint64_t> Runtime::memory_info() const {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  driver_.check(driver_.cuMemGetInfo(&free_bytes, &total_bytes), "cuMemGetInfo");
  return {free_bytes, total_bytes};
}

void Runtime::drain(drv::CUstream stream) const noexcept {
  if (stream == nullptr) return;
  context_.bind_quietly();
  driver_.cuStreamSynchronize(stream);
}

void Runtime::reserve_resident(std::uint64_t bytes) {
  std::lock_guard lock(budget_mutex_);
  std::uint64_t available = 0;
  std::string budget_text;
  if (memory_budget_bytes_ != 0) {
    available = memory_budget_bytes_ - std::min(memory_budget_bytes_, resident_live_bytes_);
    budget_text = fmt::format("the memory budget of {} ({} in resident buffers)",
                              gib(memory_budget_bytes_), gib(resident_live_bytes_));
  } else {
    const auto [free_bytes, total_bytes] = memory_info();
    available = free_bytes + device_memory_.idle_bytes();
    budget_text = fmt::format("device memory ({} free of {}, {} idle in the pool)", gib(free_bytes),
                              gib(total_bytes), gib(device_memory_.idle_bytes()));
  }
  if (bytes > available) {
    fail(VYRE_ERR_OUT_OF_MEMORY,
         fmt::format("Resident allocation of {} exceeds {}: {} available", gib(bytes), budget_text,
                     gib(available)),
         "free resident buffers, allocate less, or raise CreateOptions::memory_budget_bytes; "
         "buffers allocated earlier remain valid");
  }
  resident_live_bytes_ += bytes;
  Telemetry::add(telemetry_.resident_bytes_live, bytes);
}

void Runtime::release_resident(std::uint64_t bytes) {
  std::lock_guard lock(budget_mutex_);
  resident_live_bytes_ -= std::min(bytes, resident_live_bytes_);
  Telemetry::sub(telemetry_.resident_bytes_live, bytes);
}

}  // namespace vyre::cuda
