// One Vulkan device for one backend instance: its own VkInstance, the chosen physical device, a
// logical device with one compute queue, and what the device offers (DeviceFeatures for the
// emitter, limits for the dispatch checks, memory types for allocation).
//
// Device choice: CreateOptions::device_ordinal, else VYRE_VULKAN_DEVICE_ORDINAL (an index into the
// loader's list of physical devices), else the first discrete GPU, then integrated, virtual, any
// other GPU, and the CPU (lavapipe) last. A device qualifies with Vulkan 1.2, a compute queue and
// VK_KHR_push_descriptor. VK_KHR_shader_fma is enabled where offered (DeviceFeatures::fma32/64);
// elsewhere Runtime::open probes GLSL.std.450 Fma (codegen/fma_probe.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "codegen/lowering.hpp"
#include "runtime/loader.hpp"

namespace vyre::vulkan {

inline constexpr const char* kDeviceOrdinalEnv = "VYRE_VULKAN_DEVICE_ORDINAL";
// "1": never enable VK_KHR_shader_fma, never run the fma probe and never compute f32 fma in f64
// (wide) (runtime.cpp), so fma stays the exact integer emulation whatever the device offers (A/B
// measurements, or a driver whose fma or f64 arithmetic is wrong).
inline constexpr const char* kDisableNativeFmaEnv = "VYRE_VULKAN_DISABLE_NATIVE_FMA";
bool native_fma_allowed();
// "1": where neither VK_KHR_shader_fma nor the probe gives a fused f32 fma, compute it in f64
// (FmaSource::Wide, wide_fma.hpp) instead of the integer emulation. Off by default: exact on
// lavapipe, but on NVIDIA's driver (580.159, H200, 2026-11-27) conform then fails un.log/log2.f32
// at subnormal x and un.sin/cos/tan.f32 at huge x although fma.f32 itself passes (cause not found;
// docs/SEMANTICS.md).
inline constexpr const char* kWideFmaEnv = "VYRE_VULKAN_WIDE_FMA";
bool wide_fma_requested();
// Seeded div/sqrt (DeviceFeatures::seeded_div_sqrt32/64): unset = where fma of the width is exact by
// construction (VK_KHR_shader_fma; for f32 also the fma computed in f64, FmaSource::Wide);
// "0" = never (the exact integer algorithms); "1" = always, also over the emulated fma (slow: for
// testing the seeded path on a device without VK_KHR_shader_fma, e.g. lavapipe). Anything else is
// VYRE_ERR_INVALID_ARGUMENT at create.
inline constexpr const char* kSeededDivSqrtEnv = "VYRE_VULKAN_SEEDED_DIV_SQRT";

// VYRE_VULKAN_DEVICE_ORDINAL: nullopt when unset; throws VYRE_ERR_INVALID_ARGUMENT when malformed.
std::optional<int> device_ordinal_from_env();

struct DeviceLimits {
  std::uint32_t max_workgroup_invocations = 0;
  std::uint32_t max_workgroup_size[3] = {0, 0, 0};
  std::uint32_t max_workgroup_count[3] = {0, 0, 0};
  std::uint32_t max_shared_memory = 0;
  std::uint32_t max_push_constants = 0;
  std::uint32_t max_push_descriptors = 0;
  std::uint64_t max_storage_buffer_range = 0;
  std::uint64_t min_storage_offset_alignment = 16;
  std::uint64_t non_coherent_atom = 64;
  double timestamp_period_ns = 0;  // 0: no timestamps on the queue
  std::uint32_t subgroup_size = 0;
  std::uint32_t multiprocessors = 0;  // 0: the driver does not say (VK_NV_shader_sm_builtins, VK_AMD_shader_core_properties)
};

class Device {
 public:
  // Throws VYRE_ERR_NO_DEVICE (no loader, no qualifying device, device creation failed) or
  // VYRE_ERR_INVALID_ARGUMENT (a bad ordinal).
  static std::shared_ptr<Device> open(std::optional<int> ordinal);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const DeviceFns& fn() const { return fns_; }
  VkDevice handle() const { return device_; }
  VkQueue queue() const { return queue_; }
  std::uint32_t queue_family() const { return queue_family_; }
  std::mutex& queue_mutex() { return queue_mutex_; }

  // The queue's timeline: every submission signals the device's one timeline semaphore with the
  // next value, under the queue mutex, so values rise in submission order and a value reached
  // means every earlier submission finished too. `submit` sends `buffers` in chunks (the last
  // signals) and returns the value; `reached` and `wait_for` throw on device loss (VYRE_ERR_DEVICE
  // family, through check()). Thread-safe.
  // Unless `batched` (the batcher's own submissions), the flush hook runs first: what is batched
  // reaches the queue before this.
  std::uint64_t submit(const VkCommandBuffer* buffers, std::size_t count, bool batched = false);
  // Set by the batcher at its creation, cleared at its destruction (no submissions meanwhile).
  void set_flush_hook(std::function<void()> hook) { flush_hook_ = std::move(hook); }
  bool reached(std::uint64_t value);
  // true once `value` is reached within `timeout_ns`.
  bool wait_for(std::uint64_t value, std::uint64_t timeout_ns);

  const DeviceFeatures& features() const { return features_; }
  // The fma of width `t` and its source (the fma probe's verdict), and the seeded div/sqrt choice
  // that follows it. Only while the device is not yet shared (Runtime::open).
  void set_fma(Type t, DeviceFeatures::FmaSource source);
  const DeviceLimits& limits() const { return limits_; }
  const VkPhysicalDeviceProperties& properties() const { return properties_; }
  const VkPhysicalDeviceMemoryProperties& memory() const { return memory_; }
  std::uint64_t device_local_bytes() const;
  // Bytes identifying device and driver (pipeline cache file name).
  std::string cache_key() const;

 private:
  Device() = default;
  void create_instance(const Loader& loader);
  void choose_physical(std::optional<int> ordinal);
  void probe_and_create_device();
  void choose_seeded_div_sqrt();

  InstanceFns ifn_{};
  DeviceFns fns_{};
  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  std::uint32_t queue_family_ = 0;
  std::mutex queue_mutex_;
  VkSemaphore timeline_ = VK_NULL_HANDLE;
  std::function<void()> flush_hook_;
  std::uint64_t last_submitted_ = 0;          // under queue_mutex_
  std::atomic<std::uint64_t> completed_{0};   // a lower bound of the semaphore's value
  void note_completed(std::uint64_t value);
  VkPhysicalDeviceProperties properties_{};
  VkPhysicalDeviceMemoryProperties memory_{};
  std::uint8_t pipeline_cache_uuid_[VK_UUID_SIZE] = {};
  DeviceFeatures features_;
  std::string seeded_choice_;  // VYRE_VULKAN_SEEDED_DIV_SQRT: "", "0" or "1"
  DeviceLimits limits_;
};

}  // namespace vyre::vulkan
