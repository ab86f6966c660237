#include "runtime/loader.hpp"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "vyre/error.hpp"

namespace vyre::vulkan {

namespace {

const char* const kInstallFix =
    "install a Vulkan loader and driver (Debian: libvulkan1 and mesa-vulkan-drivers for the CPU "
    "driver lavapipe, or the GPU vendor's driver), or point VYRE_VULKAN_LOADER_LIBRARY at libvulkan.so.1";

template <class Fn>
Fn symbol_or_throw(Fn found, const char* name, const std::string& where) {
  if (found == nullptr)
    fail(VYRE_ERR_NO_DEVICE, where + " does not provide " + name,
         "update the Vulkan loader and driver to Vulkan 1.2 or newer");
  return found;
}

// Whether the object at `path` itself (not one it depends on) defines `symbol`.
bool defines(void* handle, const std::string& path, const char* symbol) {
  void* address = dlsym(handle, symbol);
  Dl_info info{};
  return address != nullptr && dladdr(address, &info) != 0 && info.dli_fname != nullptr && path == info.dli_fname;
}

std::unique_ptr<Loader> load(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    fail(VYRE_ERR_NO_DEVICE, "cannot open the Vulkan loader '" + library + "': " + (why ? why : "unknown error"),
         kInstallFix);
  }
  auto loader = std::make_unique<Loader>();
  loader->library = library;
  loader->vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(handle, "vkGetInstanceProcAddr"));
  symbol_or_throw(loader->vkGetInstanceProcAddr, "vkGetInstanceProcAddr", "'" + library + "'");
#define VYRE_VK_RESOLVE(name) \
  loader->name = reinterpret_cast<PFN_##name>(loader->vkGetInstanceProcAddr(nullptr, #name));
  VYRE_VK_GLOBAL_ENTRY_POINTS(VYRE_VK_RESOLVE)
#undef VYRE_VK_RESOLVE
  symbol_or_throw(loader->vkCreateInstance, "vkCreateInstance", "'" + library + "'");
  symbol_or_throw(loader->vkEnumerateInstanceVersion, "vkEnumerateInstanceVersion (Vulkan 1.1)", "'" + library + "'");
  return loader;  // the library stays loaded for the process's life
}

}  // namespace

const Loader& Loader::open() {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Loader>> loaded;
  const char* env = std::getenv(kLoaderLibraryEnv);
  const std::string library = env != nullptr && *env != '\0' ? env : kDefaultLoaderLibrary;
  std::lock_guard lock(mutex);
  auto& slot = loaded[library];
  if (!slot) slot = load(library);
  return *slot;
}

namespace {

std::atomic<bool> process_exiting{false};
std::atomic<bool> non_mesa_driver{false};

}  // namespace

bool drivers_shut_down() {
  return process_exiting.load(std::memory_order_acquire) && non_mesa_driver.load(std::memory_order_acquire);
}

void note_driver(VkDriverId id) {
  switch (id) {
    case VK_DRIVER_ID_MESA_RADV:
    case VK_DRIVER_ID_INTEL_OPEN_SOURCE_MESA:
    case VK_DRIVER_ID_MESA_LLVMPIPE:
    case VK_DRIVER_ID_MESA_TURNIP:
    case VK_DRIVER_ID_MESA_V3DV:
    case VK_DRIVER_ID_MESA_PANVK:
    case VK_DRIVER_ID_MESA_VENUS:
    case VK_DRIVER_ID_MESA_DOZEN: return;
    default: non_mesa_driver.store(true, std::memory_order_release);
  }
}

void watch_process_exit() {
  static std::once_flag registered;
  std::call_once(registered, [] {
    // The plugin stays loaded from here on (like the drivers): the handler's code is its own, and
    // what the runtime keeps for exit (vulkan_backend.cpp) is rooted in its data.
    Dl_info self{};
    if (dladdr(reinterpret_cast<void*>(&watch_process_exit), &self) != 0 && self.dli_fname != nullptr)
      (void)dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    std::atexit([] { process_exiting.store(true, std::memory_order_release); });
  });
}

void keep_drivers_loaded() {
  std::vector<std::string> paths;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0')
          static_cast<std::vector<std::string>*>(out)->emplace_back(info->dlpi_name);
        return 0;
      },
      &paths);
  for (const std::string& path : paths) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);  // only what is loaded now
    if (handle == nullptr) continue;
    if (defines(handle, path, "vk_icdGetInstanceProcAddr") ||
        defines(handle, path, "vkNegotiateLoaderLayerInterfaceVersion"))
      (void)dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    dlclose(handle);
  }
}

void InstanceFns::resolve(const Loader& loader, VkInstance instance) {
#define VYRE_VK_RESOLVE(name)                                                                   \
  name = reinterpret_cast<PFN_##name>(loader.vkGetInstanceProcAddr(instance, #name));           \
  symbol_or_throw(name, #name, "the Vulkan instance");
  VYRE_VK_INSTANCE_ENTRY_POINTS(VYRE_VK_RESOLVE)
#undef VYRE_VK_RESOLVE
}

void DeviceFns::resolve(const InstanceFns& instance, VkDevice device) {
#define VYRE_VK_RESOLVE(name)                                                                   \
  name = reinterpret_cast<PFN_##name>(instance.vkGetDeviceProcAddr(device, #name));             \
  symbol_or_throw(name, #name, "the Vulkan device");
  VYRE_VK_DEVICE_ENTRY_POINTS(VYRE_VK_RESOLVE)
#undef VYRE_VK_RESOLVE
}

std::string describe(VkResult result) {
  const char* name = "VK_ERROR_UNKNOWN";
  switch (result) {
#define VYRE_VK_CASE(r) case r: name = #r; break;
    VYRE_VK_CASE(VK_SUCCESS) VYRE_VK_CASE(VK_NOT_READY) VYRE_VK_CASE(VK_TIMEOUT)
    VYRE_VK_CASE(VK_INCOMPLETE) VYRE_VK_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    VYRE_VK_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY) VYRE_VK_CASE(VK_ERROR_INITIALIZATION_FAILED)
    VYRE_VK_CASE(VK_ERROR_DEVICE_LOST) VYRE_VK_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    VYRE_VK_CASE(VK_ERROR_LAYER_NOT_PRESENT) VYRE_VK_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    VYRE_VK_CASE(VK_ERROR_FEATURE_NOT_PRESENT) VYRE_VK_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    VYRE_VK_CASE(VK_ERROR_TOO_MANY_OBJECTS) VYRE_VK_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    VYRE_VK_CASE(VK_ERROR_FRAGMENTED_POOL) VYRE_VK_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    VYRE_VK_CASE(VK_ERROR_INVALID_SHADER_NV) VYRE_VK_CASE(VK_PIPELINE_COMPILE_REQUIRED)
#undef VYRE_VK_CASE
    default: break;
  }
  return std::string(name) + " (" + std::to_string(static_cast<int>(result)) + ")";
}

vyre_status status_for(VkResult result) {
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY ||
      result == VK_ERROR_OUT_OF_POOL_MEMORY)
    return VYRE_ERR_OUT_OF_MEMORY;
  return VYRE_ERR_DEVICE;
}

void check(VkResult result, std::string_view call, std::string_view fix) {
  if (result >= 0) return;
  std::string why = std::string(call) + " failed: " + describe(result);
  if (!fix.empty()) fail(status_for(result), why, fix);
  if (status_for(result) == VYRE_ERR_OUT_OF_MEMORY)
    fail(VYRE_ERR_OUT_OF_MEMORY, why, "free resident buffers or dispatch smaller inputs");
  if (result == VK_ERROR_DEVICE_LOST)
    fail(VYRE_ERR_DEVICE, why, "the Vulkan device was lost (a driver reset or a hung shader); destroy and recreate the backend instance");
  fail(VYRE_ERR_DEVICE, why, "check the Vulkan driver (vulkaninfo), and report the call and program if it persists");
}

}  // namespace vyre::vulkan
