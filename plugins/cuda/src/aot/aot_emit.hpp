// AOT bundles of the CUDA plugin (SPEC §10, docs/AOT.md): program + target -> the bundle's files.
// Needs no GPU. The plugin's registration installs it as PluginSpec::aot_emit:
//
//   spec.aot_emit = [](kit::BackendImpl* instance, const kit::AotRequest& request) {
//     std::optional<Target> device_target;
//     if (instance != nullptr) device_target = static_cast<CudaBackend*>(instance)->runtime().target();
//     return aot::emit_aot_bundle(request, device_target);
//   };
#pragma once

#include <optional>
#include <vector>

#include "lowering.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::cuda::aot {

// The bundle for `request`: manifest.json, kernel.ptx, kernel.cubin (when ptxas is available),
// weights.bin (when the request has weights) and launcher/ (the standalone launcher's sources).
// The target is request.target ("sm_90" or "90") if set, else `instance_target` (the probed
// device's), else sm_90. Throws vyre::Error: VYRE_ERR_INVALID_ARGUMENT for a runtime-sized buffer,
// an empty or inconsistent geometry, weights larger than the first input buffer (or without one),
// an unknown target; VYRE_ERR_UNSUPPORTED for an op the emitter does not lower for the target.
std::vector<vyre::AotFile> emit_aot_bundle(const kit::AotRequest& request, std::optional<Target> instance_target);

// The files a bundle's launcher/ holds, as bundle-relative names ("launcher/main.cpp", ...).
std::vector<std::string> launcher_file_names();

}  // namespace vyre::cuda::aot
