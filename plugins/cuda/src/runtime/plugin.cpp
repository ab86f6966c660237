// libvyre_cuda.so: id `cuda`, rank 5. Registration only describes the backend (ops the PTX emitter
// lowers for sm_90, capability flags); it never touches the driver or a device. create() opens
// the driver and the device.
#include <optional>
#include <string>

#include "aot/aot_emit.hpp"
#include "lowering.hpp"
#include "runtime/cuda_backend.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::cuda {
namespace {

// True when some op id has `part` as one of its dot-separated components ("load.f16" has "f16").
bool declares(const std::vector<std::string>& ops, std::string_view part) {
  for (const std::string& op : ops) {
    std::string_view rest = op;
    while (!rest.empty()) {
      const std::size_t dot = rest.find('.');
      if (rest.substr(0, dot) == part) return true;
      if (dot == std::string_view::npos) break;
      rest.remove_prefix(dot + 1);
    }
  }
  return false;
}

bool declares_prefix(const std::vector<std::string>& ops, std::string_view prefix) {
  for (const std::string& op : ops) {
    if (op.starts_with(prefix)) return true;
  }
  return false;
}

// What the runtime implements, plus what the emitter's op set shows it lowers.
std::uint64_t capabilities_for(const std::vector<std::string>& ops) {
  std::uint64_t caps = VYRE_CAP_DISPATCH | VYRE_CAP_ASYNC | VYRE_CAP_TIMED | VYRE_CAP_RESIDENT |
                       VYRE_CAP_SEQUENCE | VYRE_CAP_COMPILED_PIPELINE | VYRE_CAP_GRAPH_REPLAY;
  if (declares(ops, "f16")) caps |= VYRE_CAP_F16;
  if (declares(ops, "bf16")) caps |= VYRE_CAP_BF16;
  if (declares(ops, "f64")) caps |= VYRE_CAP_F64;
  if (declares(ops, "u64") || declares(ops, "i64")) caps |= VYRE_CAP_INT64;
  if (declares_prefix(ops, "subgroup.")) caps |= VYRE_CAP_SUBGROUP;
  if (declares(ops, "grid_sync")) caps |= VYRE_CAP_GRID_SYNC;
  if (declares_prefix(ops, "atomic.")) caps |= VYRE_CAP_ATOMICS;
  return caps;
}

kit::PluginSpec make_spec() {
  kit::PluginSpec spec;
  spec.id = "cuda";
  spec.version = "0.1.0";
  spec.rank = 5;
  spec.op_ids = lowered_ops(Target{90});
  spec.capabilities = capabilities_for(spec.op_ids);
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
    if (info != nullptr && info->struct_size >= VYRE_BACKEND_INFO_V1_SIZE) {
      info->failure = "cuda: building the plugin description failed. Fix: reinstall libvyre_cuda.so";
    }
    return VYRE_ERR_INTERNAL;
  }
}
