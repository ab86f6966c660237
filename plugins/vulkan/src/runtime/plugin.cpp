// libvyre_vulkan.so: id `vulkan`, rank 20. Registration only describes the backend (the ops the
// SPIR-V emitter lowers, the capability flags they and the runtime imply); it never opens the
// Vulkan loader. create() opens the loader and a device; compile() refuses, with
// VYRE_ERR_UNSUPPORTED, an op the device lacks a feature for (codegen/lowering.hpp).
#include "codegen/lowering.hpp"
#include "runtime/vulkan_backend.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::vulkan {
namespace {

kit::PluginSpec make_spec() {
  kit::PluginSpec spec;
  spec.id = "vulkan";
  spec.version = VYRE_VERSION;
  spec.rank = 20;
  spec.op_ids = emitted_ops();
  spec.capabilities = VYRE_CAP_DISPATCH | VYRE_CAP_ASYNC | VYRE_CAP_TIMED | VYRE_CAP_RESIDENT | VYRE_CAP_SEQUENCE |
                      VYRE_CAP_COMPILED_PIPELINE | kit::op_capabilities(spec.op_ids);
  spec.create = [](const vyre::CreateOptions& options) -> std::unique_ptr<kit::BackendImpl> {
    return std::make_unique<VulkanBackend>(Runtime::open(options));
  };
  return spec;
}

const kit::PluginSpec& plugin_spec() {
  static const kit::PluginSpec spec = make_spec();
  return spec;
}

}  // namespace
}  // namespace vyre::vulkan

extern "C" VYRE_PLUGIN_EXPORT vyre_status vyre_backend_register(const vyre_host_info* host, vyre_backend_info* info) {
  try {
    return vyre::kit::register_backend(vyre::vulkan::plugin_spec(), host, info);
  } catch (...) {
    if (info != nullptr && info->struct_size >= VYRE_BACKEND_INFO_V1_0_SIZE)
      info->failure = "vulkan: building the plugin description failed. Fix: reinstall libvyre_vulkan.so";
    return VYRE_ERR_INTERNAL;
  }
}
