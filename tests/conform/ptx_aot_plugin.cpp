// A test-only backend (id ptx_aot) with nothing but AOT emission, built on the CUDA plugin's PTX
// emitter: it lets conform's --offline path run before the CUDA plugin ships its own AOT bundles.
// Built into build/test_plugins, never build/plugins.
#include <string>

#include "lowering.hpp"
#include "vyre/plugin_kit.hpp"

namespace {

std::vector<vyre::AotFile> emit(vyre::kit::BackendImpl*, const vyre::kit::AotRequest& request) {
  const vyre::cuda::Target target = vyre::cuda::parse_target(request.target.value_or("sm_90"));
  const vyre::cuda::LoweredProgram lowered = vyre::cuda::lower(request.program, target);
  return {vyre::AotFile{"kernel.ptx", std::vector<std::uint8_t>(lowered.ptx.begin(), lowered.ptx.end())}};
}

const vyre::kit::PluginSpec& spec() {
  static const vyre::kit::PluginSpec s = [] {
    vyre::kit::PluginSpec p;
    p.id = "ptx_aot";
    p.version = "0.0.1-test";
    p.rank = 995;
    p.capabilities = VYRE_CAP_AOT;
    p.op_ids = vyre::cuda::lowered_ops(vyre::cuda::Target{90});
    p.create = [](const vyre::CreateOptions&) -> std::unique_ptr<vyre::kit::BackendImpl> {
      vyre::fail(VYRE_ERR_NO_DEVICE, "ptx_aot only emits PTX", "use it with vyre-conform --offline");
    };
    p.aot_emit = emit;
    return p;
  }();
  return s;
}

}  // namespace

extern "C" VYRE_PLUGIN_EXPORT vyre_status vyre_backend_register(const vyre_host_info* host, vyre_backend_info* info) {
  return vyre::kit::register_backend(spec(), host, info);
}
