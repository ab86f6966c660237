#include "runtime/device.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "khr_shader_fma.hpp"
#include "vyre/error.hpp"

namespace vyre::vulkan {

namespace {

constexpr std::uint32_t kMinimumApi = VK_API_VERSION_1_2;

std::string version_text(std::uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
         std::to_string(VK_API_VERSION_PATCH(v));
}

bool has_extension(const std::vector<VkExtensionProperties>& list, const char* name) {
  return std::any_of(list.begin(), list.end(), [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

std::vector<VkExtensionProperties> device_extensions(const InstanceFns& ifn, VkPhysicalDevice pd) {
  std::uint32_t count = 0;
  ifn.vkEnumerateDeviceExtensionProperties(pd, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> list(count);
  ifn.vkEnumerateDeviceExtensionProperties(pd, nullptr, &count, list.data());
  list.resize(count);
  return list;
}

std::optional<std::uint32_t> compute_queue_family(const InstanceFns& ifn, VkPhysicalDevice pd) {
  std::uint32_t count = 0;
  ifn.vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  ifn.vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, families.data());
  for (std::uint32_t i = 0; i < count; ++i)
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) return i;
  return std::nullopt;
}

// Why a physical device cannot serve vyre, or empty.
std::string disqualification(const InstanceFns& ifn, VkPhysicalDevice pd) {
  VkPhysicalDeviceProperties p{};
  ifn.vkGetPhysicalDeviceProperties(pd, &p);
  if (p.apiVersion < kMinimumApi) return "it offers Vulkan " + version_text(p.apiVersion) + " (1.2 needed)";
  if (!compute_queue_family(ifn, pd)) return "it has no compute queue";
  if (!has_extension(device_extensions(ifn, pd), VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME))
    return "it lacks VK_KHR_push_descriptor";
  return {};
}

int type_rank(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_OTHER: return 3;
    default: return 4;  // CPU
  }
}

}  // namespace

bool native_fma_allowed() {
  const char* text = std::getenv(kDisableNativeFmaEnv);
  return text == nullptr || std::strcmp(text, "1") != 0;
}

bool wide_fma_requested() {
  const char* text = std::getenv(kWideFmaEnv);
  return text != nullptr && std::strcmp(text, "1") == 0;
}

// VYRE_VULKAN_SEEDED_DIV_SQRT: "", "0" or "1".
static std::string seeded_div_sqrt_choice() {
  const char* text = std::getenv(kSeededDivSqrtEnv);
  if (text == nullptr || *text == '\0') return {};
  if (std::strcmp(text, "0") == 0 || std::strcmp(text, "1") == 0) return text;
  fail(VYRE_ERR_INVALID_ARGUMENT, std::string(kSeededDivSqrtEnv) + "='" + text + "' is not 0 or 1",
       "unset it (seeded div/sqrt where the device has native fma), or set 0 (never) or 1 (always)");
}

// By default only over an fma that is exact by construction: the one the driver promises
// (VK_KHR_shader_fma), or for f32 the one computed in f64 (Wide). Not over a probed fma: on the
// H200 (driver 580.159) with a probed f64 Fma, conform failed un.tan.f64 with the seeded f64
// division (133 of 1091 results with the wrong sign) and passed without it; the probed fma itself passed.
void Device::choose_seeded_div_sqrt() {
  DeviceFeatures& f = features_;
  using Source = DeviceFeatures::FmaSource;
  const bool exact32 = (f.fma32 && f.fma_source32 == Source::Extension) || f.fma_source32 == Source::Wide;
  f.seeded_div_sqrt32 = seeded_choice_ == "1" || (seeded_choice_.empty() && exact32);
  f.seeded_div_sqrt64 = seeded_choice_ == "1" || (seeded_choice_.empty() && f.fma64 && f.fma_source64 == Source::Extension);
}

void Device::set_fma(Type t, DeviceFeatures::FmaSource source) {
  features_.set_fma(t, source);
  choose_seeded_div_sqrt();
}

std::optional<int> device_ordinal_from_env() {
  const char* text = std::getenv(kDeviceOrdinalEnv);
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*end != '\0' || v < 0 || v > 1'000'000)
    fail(VYRE_ERR_INVALID_ARGUMENT, std::string(kDeviceOrdinalEnv) + "='" + text + "' is not a device index",
         "set it to a non-negative integer (the index of the device in `vulkaninfo --summary`) or unset it");
  return static_cast<int>(v);
}

std::shared_ptr<Device> Device::open(std::optional<int> ordinal) {
  const Loader& loader = Loader::open();
  std::shared_ptr<Device> device(new Device());
  device->create_instance(loader);
  device->ifn_.resolve(loader, device->instance_);
  device->choose_physical(ordinal);
  device->probe_and_create_device();
  return device;
}

Device::~Device() {
  if (drivers_shut_down()) return;  // see loader.hpp
  if (device_ != VK_NULL_HANDLE) {
    fns_.vkDeviceWaitIdle(device_);
    if (timeline_ != VK_NULL_HANDLE) fns_.vkDestroySemaphore(device_, timeline_, nullptr);
    fns_.vkDestroyDevice(device_, nullptr);
  }
  if (instance_ != VK_NULL_HANDLE && ifn_.vkDestroyInstance != nullptr) ifn_.vkDestroyInstance(instance_, nullptr);
}

void Device::create_instance(const Loader& loader) {
  std::uint32_t version = 0;
  loader.vkEnumerateInstanceVersion(&version);
  if (version < kMinimumApi)
    fail(VYRE_ERR_NO_DEVICE, "the Vulkan loader '" + loader.library + "' offers Vulkan " + version_text(version) + " (1.2 needed)",
         "update the Vulkan loader (Debian: libvulkan1)");
  std::uint32_t count = 0;
  loader.vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  loader.vkEnumerateInstanceExtensionProperties(nullptr, &count, extensions.data());
  extensions.resize(count);
  std::vector<const char*> enabled;
  VkInstanceCreateFlags flags = 0;
  if (has_extension(extensions, "VK_KHR_portability_enumeration")) {  // MoltenVK
    enabled.push_back("VK_KHR_portability_enumeration");
    flags |= 0x00000001;  // VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR
  }
  auto app = vk_struct<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.pApplicationName = "vyre";
  app.pEngineName = "vyre";
  app.apiVersion = version >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : VK_API_VERSION_1_2;
  auto info = vk_struct<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  info.flags = flags;
  info.pApplicationInfo = &app;
  info.enabledExtensionCount = static_cast<std::uint32_t>(enabled.size());
  info.ppEnabledExtensionNames = enabled.data();
  const VkResult r = loader.vkCreateInstance(&info, nullptr, &instance_);
  if (r != VK_SUCCESS)
    fail(VYRE_ERR_NO_DEVICE, "vkCreateInstance failed: " + describe(r),
         "check the Vulkan installation with `vulkaninfo --summary` (an ICD must be installed: Debian "
         "mesa-vulkan-drivers, or the GPU vendor's driver; VK_DRIVER_FILES can name it)");
  keep_drivers_loaded();
  watch_process_exit();
}

void Device::choose_physical(std::optional<int> ordinal) {
  std::uint32_t count = 0;
  ifn_.vkEnumeratePhysicalDevices(instance_, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  ifn_.vkEnumeratePhysicalDevices(instance_, &count, devices.data());
  devices.resize(count);
  if (devices.empty())
    fail(VYRE_ERR_NO_DEVICE, "the Vulkan loader finds no physical device",
         "install a Vulkan driver (Debian: mesa-vulkan-drivers for lavapipe) or check VK_DRIVER_FILES / VK_ICD_FILENAMES");
  if (ordinal) {
    if (*ordinal >= static_cast<int>(devices.size()))
      fail(VYRE_ERR_NO_DEVICE, "Vulkan device " + std::to_string(*ordinal) + " does not exist (" +
                                   std::to_string(devices.size()) + " found)",
           "pick a device index below " + std::to_string(devices.size()) + " (`vulkaninfo --summary`)");
    const std::string why = disqualification(ifn_, devices[*ordinal]);
    if (!why.empty())
      fail(VYRE_ERR_NO_DEVICE, "Vulkan device " + std::to_string(*ordinal) + " cannot run vyre: " + why,
           "pick another device (VYRE_VULKAN_DEVICE_ORDINAL) or update its driver");
    physical_ = devices[*ordinal];
    return;
  }
  std::string reasons;
  int best_rank = 99;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const std::string why = disqualification(ifn_, devices[i]);
    VkPhysicalDeviceProperties p{};
    ifn_.vkGetPhysicalDeviceProperties(devices[i], &p);
    if (!why.empty()) {
      reasons += std::string(reasons.empty() ? "" : "; ") + p.deviceName + ": " + why;
      continue;
    }
    if (type_rank(p.deviceType) < best_rank) {
      best_rank = type_rank(p.deviceType);
      physical_ = devices[i];
    }
  }
  if (physical_ == VK_NULL_HANDLE)
    fail(VYRE_ERR_NO_DEVICE, "no Vulkan device can run vyre (" + reasons + ")",
         "update the Vulkan driver to one offering Vulkan 1.2 with VK_KHR_push_descriptor");
}

void Device::probe_and_create_device() {
  ifn_.vkGetPhysicalDeviceProperties(physical_, &properties_);
  ifn_.vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);
  const auto extensions = device_extensions(ifn_, physical_);
  const bool core13 = properties_.apiVersion >= VK_API_VERSION_1_3;
  const bool size_control = core13 || has_extension(extensions, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);

  // ---- properties ----
  auto sg_props = vk_struct<VkPhysicalDeviceSubgroupSizeControlProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES);
  auto push_props = vk_struct<VkPhysicalDevicePushDescriptorPropertiesKHR>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PUSH_DESCRIPTOR_PROPERTIES_KHR);
  auto p12 = vk_struct<VkPhysicalDeviceVulkan12Properties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES);
  auto p11 = vk_struct<VkPhysicalDeviceVulkan11Properties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES);
  auto props2 = vk_struct<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
  props2.pNext = &p11;
  p11.pNext = &p12;
  p12.pNext = &push_props;
  if (size_control) push_props.pNext = &sg_props;
  // The multiprocessor count, where the vendor says it (workgroup counts of grid-stride programs).
  auto nv_sm = vk_struct<VkPhysicalDeviceShaderSMBuiltinsPropertiesNV>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV);
  auto amd_cores = vk_struct<VkPhysicalDeviceShaderCorePropertiesAMD>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD);
  const bool nv_sm_count = has_extension(extensions, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
  const bool amd_core_count = has_extension(extensions, VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME);
  void** tail = size_control ? &sg_props.pNext : &push_props.pNext;
  if (nv_sm_count) { *tail = &nv_sm; tail = &nv_sm.pNext; }
  if (amd_core_count) *tail = &amd_cores;
  ifn_.vkGetPhysicalDeviceProperties2(physical_, &props2);
  note_driver(p12.driverID);
  limits_.multiprocessors = nv_sm_count ? nv_sm.shaderSMCount
                            : amd_core_count ? amd_cores.shaderEngineCount * amd_cores.computeUnitsPerShaderArray *
                                                   amd_cores.shaderArraysPerEngineCount
                                             : 0;
  std::memcpy(pipeline_cache_uuid_, properties_.pipelineCacheUUID, VK_UUID_SIZE);

  // ---- features ----
  auto sg_feat = vk_struct<VkPhysicalDeviceSubgroupSizeControlFeatures>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES);
  auto f12 = vk_struct<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  auto f11 = vk_struct<VkPhysicalDeviceVulkan11Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
  auto feat2 = vk_struct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  feat2.pNext = &f11;
  f11.pNext = &f12;
  if (size_control) f12.pNext = &sg_feat;
  // VK_KHR_shader_fma (OpFmaKHR), unless VYRE_VULKAN_DISABLE_NATIVE_FMA=1 keeps the emulation.
  const bool fma_extension = native_fma_allowed() && has_extension(extensions, khr_fma::kDeviceExtension);
  auto fma_feat = vk_struct<khr_fma::Features>(khr_fma::kFeaturesType);
  if (fma_extension) {
    fma_feat.pNext = feat2.pNext;
    feat2.pNext = &fma_feat;
  }
  ifn_.vkGetPhysicalDeviceFeatures2(physical_, &feat2);

  DeviceFeatures& f = features_;
  f.float64 = feat2.features.shaderFloat64;
  f.int64 = feat2.features.shaderInt64;
  f.int64_buffer_atomics = f.int64 && f12.shaderBufferInt64Atomics;
  f.int64_shared_atomics = f.int64 && f12.shaderSharedInt64Atomics;
  f.storage8 = f12.storageBuffer8BitAccess;
  f.storage16 = f11.storageBuffer16BitAccess;
  const VkSubgroupFeatureFlags needed_ops =
      VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
  f.subgroup32 = size_control && sg_feat.subgroupSizeControl && sg_feat.computeFullSubgroups &&
                 sg_props.minSubgroupSize <= 32 && sg_props.maxSubgroupSize >= 32 &&
                 (sg_props.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                 (p11.subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                 (p11.subgroupSupportedOperations & needed_ops) == needed_ops;
  f.denorm_preserve32 = p12.shaderDenormPreserveFloat32;
  f.denorm_preserve64 = p12.shaderDenormPreserveFloat64;
  f.rte32 = p12.shaderRoundingModeRTEFloat32;
  f.rte64 = p12.shaderRoundingModeRTEFloat64;
  f.signed_zero_inf_nan32 = p12.shaderSignedZeroInfNanPreserveFloat32;
  f.signed_zero_inf_nan64 = p12.shaderSignedZeroInfNanPreserveFloat64;
  using Source = DeviceFeatures::FmaSource;
  f.set_fma(Type::F32, fma_extension && fma_feat.shaderFmaFloat32 ? Source::Extension : Source::Emulation);
  f.set_fma(Type::F64, fma_extension && fma_feat.shaderFmaFloat64 && f.float64 ? Source::Extension : Source::Emulation);
  seeded_choice_ = seeded_div_sqrt_choice();
  choose_seeded_div_sqrt();

  // ---- limits ----
  const VkPhysicalDeviceLimits& l = properties_.limits;
  limits_.max_workgroup_invocations = l.maxComputeWorkGroupInvocations;
  for (int i = 0; i < 3; ++i) {
    limits_.max_workgroup_size[i] = l.maxComputeWorkGroupSize[i];
    limits_.max_workgroup_count[i] = l.maxComputeWorkGroupCount[i];
  }
  limits_.max_shared_memory = l.maxComputeSharedMemorySize;
  limits_.max_push_constants = l.maxPushConstantsSize;
  limits_.max_push_descriptors = push_props.maxPushDescriptors;
  limits_.max_storage_buffer_range = l.maxStorageBufferRange;
  limits_.min_storage_offset_alignment = l.minStorageBufferOffsetAlignment;
  limits_.non_coherent_atom = l.nonCoherentAtomSize;
  limits_.subgroup_size = p11.subgroupSize;

  queue_family_ = *compute_queue_family(ifn_, physical_);
  {
    std::uint32_t count = 0;
    ifn_.vkGetPhysicalDeviceQueueFamilyProperties(physical_, &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    ifn_.vkGetPhysicalDeviceQueueFamilyProperties(physical_, &count, families.data());
    if (families[queue_family_].timestampValidBits > 0) limits_.timestamp_period_ns = l.timestampPeriod;
  }

  // ---- the logical device, with only the features vyre uses ----
  auto sg_on = vk_struct<VkPhysicalDeviceSubgroupSizeControlFeatures>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES);
  sg_on.subgroupSizeControl = f.subgroup32;
  sg_on.computeFullSubgroups = f.subgroup32;
  auto f12_on = vk_struct<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  f12_on.storageBuffer8BitAccess = f.storage8;
  f12_on.shaderBufferInt64Atomics = f.int64_buffer_atomics;
  f12_on.shaderSharedInt64Atomics = f.int64_shared_atomics;
  f12_on.timelineSemaphore = VK_TRUE;  // required by Vulkan 1.2
  auto f11_on = vk_struct<VkPhysicalDeviceVulkan11Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
  f11_on.storageBuffer16BitAccess = f.storage16;
  auto on = vk_struct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  on.features.shaderFloat64 = f.float64;
  on.features.shaderInt64 = f.int64;
  on.pNext = &f11_on;
  f11_on.pNext = &f12_on;
  if (f.subgroup32) f12_on.pNext = &sg_on;
  auto fma_on = vk_struct<khr_fma::Features>(khr_fma::kFeaturesType);
  fma_on.shaderFmaFloat32 = f.fma32;
  fma_on.shaderFmaFloat64 = f.fma64;
  if (f.fma32 || f.fma64) {
    fma_on.pNext = on.pNext;
    on.pNext = &fma_on;
  }

  std::vector<const char*> enabled{VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  if (f.subgroup32 && !core13) enabled.push_back(VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
  if (f.fma32 || f.fma64) enabled.push_back(khr_fma::kDeviceExtension);
  const float priority = 1.0f;
  auto queue_info = vk_struct<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
  queue_info.queueFamilyIndex = queue_family_;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  auto info = vk_struct<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
  info.pNext = &on;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue_info;
  info.enabledExtensionCount = static_cast<std::uint32_t>(enabled.size());
  info.ppEnabledExtensionNames = enabled.data();
  const VkResult r = ifn_.vkCreateDevice(physical_, &info, nullptr, &device_);
  if (r != VK_SUCCESS)
    fail(VYRE_ERR_NO_DEVICE, std::string("vkCreateDevice failed on '") + properties_.deviceName + "': " + describe(r),
         "check the device with `vulkaninfo --summary`, or pick another (VYRE_VULKAN_DEVICE_ORDINAL)");
  fns_.resolve(ifn_, device_);
  fns_.vkGetDeviceQueue(device_, queue_family_, 0, &queue_);
  auto timeline_type = vk_struct<VkSemaphoreTypeCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
  timeline_type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  timeline_type.initialValue = 0;
  auto sem = vk_struct<VkSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO);
  sem.pNext = &timeline_type;
  const VkResult made = fns_.vkCreateSemaphore(device_, &sem, nullptr, &timeline_);
  if (made != VK_SUCCESS)
    fail(VYRE_ERR_NO_DEVICE, std::string("vkCreateSemaphore (timeline) failed on '") + properties_.deviceName + "': " + describe(made),
         "update the Vulkan driver (timeline semaphores are core in Vulkan 1.2)");
}

std::uint64_t Device::submit(const VkCommandBuffer* buffers, std::size_t count, bool batched) {
  constexpr std::size_t kChunk = 1024;
  if (!batched && flush_hook_) flush_hook_();
  std::lock_guard lock(queue_mutex_);
  const std::uint64_t value = last_submitted_ + 1;
  auto signal = vk_struct<VkTimelineSemaphoreSubmitInfo>(VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO);
  signal.signalSemaphoreValueCount = 1;
  signal.pSignalSemaphoreValues = &value;
  std::size_t at = 0;
  do {
    const std::size_t n = std::min(kChunk, count - at);
    const bool last = at + n >= count;
    auto info = vk_struct<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    info.commandBufferCount = static_cast<std::uint32_t>(n);
    info.pCommandBuffers = buffers + at;
    if (last) {
      info.pNext = &signal;
      info.signalSemaphoreCount = 1;
      info.pSignalSemaphores = &timeline_;
    }
    const VkResult r = fns_.vkQueueSubmit(queue_, 1, &info, VK_NULL_HANDLE);
    if (r != VK_SUCCESS) {
      // Earlier chunks may be running and nothing will signal `value`: let them finish before the
      // caller reuses or frees their command buffers.
      if (at > 0) fns_.vkDeviceWaitIdle(device_);
      check(r, "vkQueueSubmit");
    }
    at += n;
  } while (at < count);
  last_submitted_ = value;
  return value;
}

void Device::note_completed(std::uint64_t value) {
  std::uint64_t seen = completed_.load(std::memory_order_relaxed);
  while (seen < value && !completed_.compare_exchange_weak(seen, value, std::memory_order_release)) {
  }
}

bool Device::reached(std::uint64_t value) {
  if (completed_.load(std::memory_order_acquire) >= value) return true;
  std::uint64_t now = 0;
  check(fns_.vkGetSemaphoreCounterValue(device_, timeline_, &now), "vkGetSemaphoreCounterValue");
  note_completed(now);
  return now >= value;
}

bool Device::wait_for(std::uint64_t value, std::uint64_t timeout_ns) {
  if (completed_.load(std::memory_order_acquire) >= value) return true;
  auto info = vk_struct<VkSemaphoreWaitInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO);
  info.semaphoreCount = 1;
  info.pSemaphores = &timeline_;
  info.pValues = &value;
  const VkResult r = fns_.vkWaitSemaphores(device_, &info, timeout_ns);
  if (r == VK_TIMEOUT) return false;
  check(r, "vkWaitSemaphores");
  note_completed(value);
  return true;
}

std::uint64_t Device::device_local_bytes() const {
  std::uint64_t best = 0;
  for (std::uint32_t i = 0; i < memory_.memoryHeapCount; ++i)
    if (memory_.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) best = std::max<std::uint64_t>(best, memory_.memoryHeaps[i].size);
  return best;
}

std::string Device::cache_key() const {
  static const char* hex = "0123456789abcdef";
  std::string key = std::to_string(properties_.vendorID) + "-" + std::to_string(properties_.deviceID) + "-" +
                    std::to_string(properties_.driverVersion) + "-";
  for (std::uint8_t b : pipeline_cache_uuid_) {
    key += hex[b >> 4];
    key += hex[b & 15];
  }
  return key;
}

}  // namespace vyre::vulkan
