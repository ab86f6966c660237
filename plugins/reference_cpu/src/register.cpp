// The plugin's one exported symbol: id `reference_cpu`, rank 900, the reference oracle, declaring
// every op id of the catalog.
#include "reference_backend.hpp"
#include "vyre/ops.hpp"
#include "vyre/plugin_kit.hpp"

#ifndef VYRE_VERSION
#define VYRE_VERSION "0.0.0"
#endif

namespace vyre::refcpu {
namespace {

constexpr std::uint64_t kCapabilities =
    VYRE_CAP_DISPATCH | VYRE_CAP_ASYNC | VYRE_CAP_TIMED | VYRE_CAP_RESIDENT | VYRE_CAP_SEQUENCE |
    VYRE_CAP_COMPILED_PIPELINE | VYRE_CAP_F16 | VYRE_CAP_BF16 | VYRE_CAP_F64 | VYRE_CAP_INT64 |
    VYRE_CAP_SUBGROUP | VYRE_CAP_GRID_SYNC | VYRE_CAP_ATOMICS | VYRE_CAP_REFERENCE_ORACLE |
    VYRE_CAP_EXTERNAL_MEMORY | VYRE_CAP_DEADLINE | VYRE_CAP_CANCEL;

kit::PluginSpec make_spec() {
  kit::PluginSpec spec;
  spec.id = "reference_cpu";
  spec.version = VYRE_VERSION;
  spec.rank = 900;
  spec.capabilities = kCapabilities;
  for (const OpInfo& op : op_catalog()) spec.op_ids.push_back(op.id);
  spec.create = [](const vyre::CreateOptions& options) -> std::unique_ptr<kit::BackendImpl> {
    return std::make_unique<ReferenceBackend>(options);
  };
  return spec;
}

const kit::PluginSpec* spec_or_null() noexcept {
  try {
    static const kit::PluginSpec spec = make_spec();
    return &spec;
  } catch (...) {
    return nullptr;
  }
}

}  // namespace
}  // namespace vyre::refcpu

extern "C" VYRE_PLUGIN_EXPORT vyre_status vyre_backend_register(const vyre_host_info* host,
                                                                 vyre_backend_info* info) {
  const vyre::kit::PluginSpec* spec = vyre::refcpu::spec_or_null();
  if (spec == nullptr) {
    if (info != nullptr && info->struct_size >= VYRE_BACKEND_INFO_V1_0_SIZE)
      info->failure = "reference_cpu could not build its op list (out of memory). Fix: free host memory and load the plugin again.";
    return VYRE_ERR_OUT_OF_MEMORY;
  }
  return vyre::kit::register_backend(*spec, host, info);
}
