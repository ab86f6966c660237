// A test plugin with id `cuda` whose only capability is the CUDA plugin's AOT emitter
// (src/aot/aot_emit.hpp): vyre-aot is tested through the real registry, ABI and emitter on any
// machine, independently of the device runtime. It declares the emitter's sm_90 ops; create fails
// as the real plugin's does without a device.
#include <memory>
#include <optional>

#include "aot/aot_emit.hpp"
#include "lowering.hpp"
#include "vyre/error.hpp"
#include "vyre/plugin_kit.hpp"

namespace {

const vyre::kit::PluginSpec& spec() {
  static const vyre::kit::PluginSpec plugin = [] {
    vyre::kit::PluginSpec s;
    s.id = "cuda";
    s.version = "0.1.0-aot-test";
    s.rank = 5;
    s.capabilities = VYRE_CAP_AOT;
    s.op_ids = vyre::cuda::lowered_ops(vyre::cuda::Target{90});
    s.create = [](const vyre::CreateOptions&) -> std::unique_ptr<vyre::kit::BackendImpl> {
      vyre::fail(VYRE_ERR_NO_DEVICE, "this test plugin only emits AOT bundles", "use the real cuda plugin to run");
    };
    s.aot_emit = [](vyre::kit::BackendImpl*, const vyre::kit::AotRequest& request) {
      return vyre::cuda::aot::emit_aot_bundle(request, std::nullopt);
    };
    return s;
  }();
  return plugin;
}

}  // namespace

extern "C" VYRE_PLUGIN_EXPORT vyre_status vyre_backend_register(const vyre_host_info* host, vyre_backend_info* info) {
  return vyre::kit::register_backend(spec(), host, info);
}
