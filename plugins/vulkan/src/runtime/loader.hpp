// The Vulkan loader, opened at run time: dlopen("libvulkan.so.1") (or VYRE_VULKAN_LOADER_LIBRARY),
// then every entry point of entry_points.hpp through vkGetInstanceProcAddr / vkGetDeviceProcAddr.
// Nothing links libvulkan, so the plugin loads and registers on machines without Vulkan; only
// create() fails.
#pragma once

#include <string>
#include <string_view>

#include <vulkan/vulkan_core.h>

#include "runtime/entry_points.hpp"
#include "vyre/backend_abi.h"

namespace vyre::vulkan {

inline constexpr const char* kLoaderLibraryEnv = "VYRE_VULKAN_LOADER_LIBRARY";
inline constexpr const char* kDefaultLoaderLibrary = "libvulkan.so.1";

// The global entry points of the process's loader, opened once per library path and kept loaded.
// Throws vyre::Error VYRE_ERR_NO_DEVICE (with what to install) when the library cannot be opened
// or lacks vkGetInstanceProcAddr.
struct Loader {
  static const Loader& open();

  std::string library;
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
#define VYRE_VK_DECLARE(name) PFN_##name name = nullptr;
  VYRE_VK_GLOBAL_ENTRY_POINTS(VYRE_VK_DECLARE)
#undef VYRE_VK_DECLARE
};

// Keeps the drivers (ICDs) and layers the Vulkan loader has opened loaded for the process's life:
// every loaded shared object exporting the loader-driver or loader-layer interface
// (vk_icdGetInstanceProcAddr, vkNegotiateLoaderLayerInterfaceVersion) is re-opened RTLD_NODELETE.
// The loader otherwise unloads them at vkDestroyInstance and loads them again at the next
// vkCreateInstance: Mesa's drivers (with LLVM) pay their start-up each time, are not written to be
// unloaded (static state they allocate is lost, which LeakSanitizer reports as leaks). Call after
// vkCreateInstance; thread-safe.
void keep_drivers_loaded();

// Whether the process is exiting and the Vulkan drivers may already be torn down. Drivers register
// exit handlers when they load (NVIDIA's tears its state down in one), and exit handlers run in
// reverse order of registration, so an object destroyed later at exit (a backend or registry in
// static storage) would call into a dead driver and crash the process on its way out. Once set,
// the runtime's destructors make no Vulkan calls: the process is ending and the OS reclaims the
// memory (an on-disk pipeline cache is then not updated). Set by watch_process_exit's handler, and
// only where a driver other than Mesa's was opened (note_driver): Mesa's drivers are torn down
// cleanly at exit (and checked for leaks that way in CI, on lavapipe).
bool drivers_shut_down();
// Records the driver of an opened physical device (VkPhysicalDeviceVulkan12Properties::driverID).
void note_driver(VkDriverId id);
// Registers (once per process) the exit handler that sets drivers_shut_down(), and keeps this
// plugin loaded for the process's life (its handler and what it keeps for exit live in it). Call
// after a vkCreateInstance succeeded, so that the handler runs before those the drivers registered
// while loading. Thread-safe.
void watch_process_exit();

// Instance-level and device-level entry points.
struct InstanceFns {
#define VYRE_VK_DECLARE(name) PFN_##name name = nullptr;
  VYRE_VK_INSTANCE_ENTRY_POINTS(VYRE_VK_DECLARE)
#undef VYRE_VK_DECLARE
  void resolve(const Loader& loader, VkInstance instance);
};

struct DeviceFns {
#define VYRE_VK_DECLARE(name) PFN_##name name = nullptr;
  VYRE_VK_DEVICE_ENTRY_POINTS(VYRE_VK_DECLARE)
#undef VYRE_VK_DECLARE
  void resolve(const InstanceFns& instance, VkDevice device);
};

// A zeroed Vulkan struct with its sType set.
template <class T>
T vk_struct(VkStructureType type) {
  T value{};
  value.sType = type;
  return value;
}

// "VK_ERROR_OUT_OF_DEVICE_MEMORY (-2)"
std::string describe(VkResult result);
// The vyre status a failed result maps to: OUT_OF_MEMORY for the out-of-memory results, DEVICE
// for the rest.
vyre_status status_for(VkResult result);
// Throws vyre::Error when `result` is negative: "<call> failed: <describe>. Fix: <fix>".
void check(VkResult result, std::string_view call, std::string_view fix = {});

}  // namespace vyre::vulkan
