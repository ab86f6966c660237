#include "runtime/vulkan_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <vector>

#include "runtime/host_dispatch.hpp"
#include "runtime/program.hpp"
#include "runtime/resident.hpp"
#include "runtime/sequence.hpp"

namespace vyre::vulkan {

namespace {

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

template <std::size_t N>
void copy_text(char (&dst)[N], const std::string& text) {
  std::memset(dst, 0, N);
  std::memcpy(dst, text.data(), std::min(text.size(), N - 1));
}

// A runtime whose backend is destroyed at exit (drivers_shut_down(), loader.hpp): kept here, never
// destroyed and reachable from a static, so that its device objects are neither torn down (the
// driver may be gone) nor reported by LeakSanitizer as leaked.
void keep_until_exit(std::shared_ptr<Runtime> runtime) {
  static auto* const mutex = new std::mutex();                                 // never destroyed
  static auto* const kept = new std::vector<std::shared_ptr<Runtime>>();  // never destroyed
  std::lock_guard lock(*mutex);
  kept->push_back(std::move(runtime));
}

}  // namespace

VulkanBackend::~VulkanBackend() {
  if (drivers_shut_down()) {
    keep_until_exit(rt_);
    return;
  }
  try {
    std::lock_guard lock(rt_->device->queue_mutex());
    rt_->device->fn().vkDeviceWaitIdle(rt_->device->handle());
  } catch (...) {
  }
}

void VulkanBackend::device_profile(vyre_device_profile& out) {
  const Device& d = *rt_->device;
  const VkPhysicalDeviceProperties& p = d.properties();
  const DeviceLimits& l = d.limits();
  out.kind = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? VYRE_DEVICE_KIND_CPU : VYRE_DEVICE_KIND_GPU;
  copy_text(out.name, p.deviceName);
  copy_text(out.target, "spirv1.5");
  out.compute_major = VK_API_VERSION_MAJOR(p.apiVersion);
  out.compute_minor = VK_API_VERSION_MINOR(p.apiVersion);
  out.driver_version = p.driverVersion;
  out.multiprocessors = l.multiprocessors;
  out.total_memory_bytes = d.device_local_bytes();
  out.subgroup_width = l.subgroup_size;
  out.max_threads_per_workgroup = std::min(l.max_workgroup_invocations, l.max_workgroup_size[0]);
  for (int i = 0; i < 3; ++i) {
    out.max_workgroup_size[i] = l.max_workgroup_size[i];
    out.max_grid_size[i] = UINT32_MAX;  // larger grids are split into several dispatches
  }
  out.shared_memory_per_workgroup = l.max_shared_memory;
  out.shared_memory_per_multiprocessor = 0;
  out.cooperative_launch = 0;  // grid_sync runs as one dispatch per phase
}

std::shared_ptr<kit::CompiledProgram> VulkanBackend::compile(Program program, std::string fingerprint) {
  return std::make_shared<VulkanProgram>(std::move(program), std::move(fingerprint), rt_);
}

void VulkanBackend::dispatch(const kit::HostDispatch& dispatch) {
  HostRun run(rt_, dispatch, false);
  run.wait(UINT64_MAX);
}

std::unique_ptr<kit::Pending> VulkanBackend::dispatch_async(const kit::HostDispatch& dispatch) {
  return std::make_unique<HostPending>(std::make_unique<HostRun>(rt_, dispatch, false));
}

vyre::Timing VulkanBackend::dispatch_timed(const kit::HostDispatch& dispatch) {
  vyre::Timing t;
  const std::uint64_t start = now_ns();
  HostRun run(rt_, dispatch, true);
  const std::uint64_t queued = now_ns();
  run.wait(UINT64_MAX);
  t.device_ns = run.device_ns();
  t.has_device_ns = true;
  t.enqueue_ns = queued - start;
  t.wait_ns = now_ns() - queued;
  t.wall_ns = now_ns() - start;
  Telemetry::add(rt_->telemetry.timed_dispatches);
  Telemetry::add(rt_->telemetry.timed_device_ns, t.device_ns);
  return t;
}

std::shared_ptr<kit::DeviceBuffer> VulkanBackend::resident_alloc(std::uint64_t byte_len) {
  return std::make_shared<VulkanResident>(rt_, byte_len);
}

void VulkanBackend::resident_upload(std::span<const kit::CheckedWrite> writes) { upload(*rt_, writes); }

void VulkanBackend::resident_download(std::span<const kit::CheckedRead> reads) { download(*rt_, reads); }

std::unique_ptr<kit::Pending> VulkanBackend::dispatch_resident(const kit::ResidentDispatch& dispatch, bool wait) {
  return vulkan::dispatch_resident(rt_, dispatch, wait, nullptr);
}

vyre::Timing VulkanBackend::dispatch_resident_timed(const kit::ResidentDispatch& dispatch) {
  vyre::Timing t;
  vulkan::dispatch_resident(rt_, dispatch, true, &t);
  Telemetry::add(rt_->telemetry.timed_dispatches);
  Telemetry::add(rt_->telemetry.timed_device_ns, t.device_ns);
  return t;
}

void VulkanBackend::sequence_run(const kit::CheckedSequence& sequence) { run_sequence(*rt_, sequence); }

std::vector<kit::Counter> VulkanBackend::metrics() { return rt_->telemetry.snapshot(); }

void VulkanBackend::metrics_reset() { rt_->telemetry.reset(); }

}  // namespace vyre::vulkan
