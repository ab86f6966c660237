// libvyre_cuda.so: id `cuda`, rank 5. Registration only describes the backend (ops the PTX emitter
// lowers for sm_90, capability flags); it never touches the driver or a device. create() opens
// the driver and the device.
#include <optional>
#include <string>

#include "aot/aot_emit.hpp"
#include "group/group_extension.hpp"
#include "runtime/native_stream_extension.hpp"
#include "lowering.hpp"
#include "runtime/cuda_backend.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::cuda {
namespace {

kit::PluginSpec make_spec() {
  kit::PluginSpec spec;
  spec.id = "cuda";
  spec.version = "0.1.0";
  spec.rank = 5;
  spec.op_ids = lowered_ops(Target{90});
  // What the runtime implements, plus what the emitter's op set shows it lowers.
  spec.capabilities = VYRE_CAP_DISPATCH | VYRE_CAP_ASYNC | VYRE_CAP_TIMED | VYRE_CAP_RESIDENT | VYRE_CAP_SEQUENCE |
                      VYRE_CAP_COMPILED_PIPELINE | VYRE_CAP_GRAPH_REPLAY | VYRE_CAP_EXTERNAL_MEMORY |
                      VYRE_CAP_DEADLINE |
                      kit::op_capabilities(spec.op_ids);
  spec.create = [](const vyre::CreateOptions& options) -> std::unique_ptr<kit::BackendImpl> {
    return std::make_unique<CudaBackend>(Runtime::open(options));
  };
  // AOT bundles (SPEC §10): emitted without a device; an instance contributes its target.
  spec.capabilities |= VYRE_CAP_AOT;
  spec.aot_emit = [](kit::BackendImpl* instance, const kit::AotRequest& request) {
    std::optional<Target> device_target;
    if (instance != nullptr) device_target = static_cast<CudaBackend*>(instance)->runtime().target();
    return aot::emit_aot_bundle(request, device_target);
  };
  // VYRE_EXTENSION_NATIVE_STREAM (dispatches ordered after torch/CuPy streams), then
  // VYRE_EXTENSION_DEVICE_GROUP (device enumeration, groups, collectives).
  spec.extensions = native_stream_extension();
  return spec;
}

const kit::PluginSpec& plugin_spec() {
  static const kit::PluginSpec spec = make_spec();
  return spec;
}

}  // namespace
}  // namespace vyre::cuda

extern "C" VYRE_PLUGIN_EXPORT vyre_status vyre_backend_register(const vyre_host_info* host,
                                                                vyre_backend_info* info) {
  try {
    return vyre::kit::register_backend(vyre::cuda::plugin_spec(), host, info);
  } catch (...) {
    if (info != nullptr && info->struct_size >= VYRE_BACKEND_INFO_V1_0_SIZE) {
      info->failure = "cuda: building the plugin description failed. Fix: reinstall libvyre_cuda.so";
    }
    return VYRE_ERR_INTERNAL;
  }
}
