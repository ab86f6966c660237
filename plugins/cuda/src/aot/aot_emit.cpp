#include "aot/aot_emit.hpp"

#include <boost/json/value.hpp>
#include <fmt/format.h>

#include "aot/bundle_geometry.hpp"
#include "aot/launcher_sources.hpp"
#include "aot/manifest_json.hpp"
#include "aot/manifest_writer.hpp"
#include "aot/ptxas.hpp"
#include "vyre/error.hpp"
#include "vyre/types.hpp"

namespace vyre::cuda::aot {
namespace {

constexpr std::uint32_t kDefaultSm = 90;

Target choose_target(const kit::AotRequest& request, const std::optional<Target>& instance_target) {
  if (request.target) return parse_target(*request.target);
  if (instance_target) return *instance_target;
  return Target{kDefaultSm};
}

// Weights go into the first input buffer and must fit it.
void check_weights(const kit::AotRequest& request, const BundleGeometry& geometry) {
  if (request.weights.empty()) return;
  const auto inputs = request.program.input_indices();
  if (inputs.empty()) {
    fail(VYRE_ERR_INVALID_ARGUMENT,
         fmt::format("the bundle has {} bytes of weights but the program has no input buffer to hold them",
                     request.weights.size()),
         "drop the weights, or declare a read, uniform or read_write buffer first");
  }
  const BufferDecl& first = request.program.buffers[inputs.front()];
  const std::uint64_t capacity = geometry.counts[inputs.front()] * byte_size(first.element);
  if (request.weights.size() > capacity) {
    fail(VYRE_ERR_INVALID_ARGUMENT,
         fmt::format("the weights are {} bytes but the first input buffer '{}' holds {} bytes ({} x {})",
                     request.weights.size(), first.name, capacity, geometry.counts[inputs.front()],
                     type_name(first.element)),
         fmt::format("use weights of at most {} bytes, or declare '{}' larger", capacity, first.name));
  }
}

BundleFile text_file(std::string name, std::string_view text) {
  return BundleFile{std::move(name), std::vector<std::uint8_t>(text.begin(), text.end())};
}

vyre::AotFile to_aot(BundleFile file) { return vyre::AotFile{std::move(file.name), std::move(file.data)}; }

}  // namespace

std::vector<std::string> launcher_file_names() {
  std::vector<std::string> names;
  for (const EmbeddedFile& file : launcher_sources()) names.push_back(fmt::format("launcher/{}", file.name));
  return names;
}

std::vector<vyre::AotFile> emit_aot_bundle(const kit::AotRequest& request, std::optional<Target> instance_target) {
  const Target target = choose_target(request, instance_target);
  const BundleGeometry geometry = resolve_bundle_geometry(request.program, request.config);
  check_weights(request, geometry);
  // The bundle launches exactly its manifest's workgroup: specialise the module to it.
  const LoweredProgram lowered = lower(request.program, target, LowerOptions{.workgroup = geometry.launch.workgroup});

  BundleFile ptx = text_file("kernel.ptx", lowered.ptx);
  CubinResult assembled = assemble_cubin(lowered.ptx, target);
  std::optional<BundleFile> cubin;
  if (assembled.cubin) cubin = BundleFile{"kernel.cubin", std::move(*assembled.cubin)};
  std::optional<BundleFile> weights;
  if (!request.weights.empty()) {
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(request.weights.data());
    weights = BundleFile{"weights.bin", std::vector<std::uint8_t>(bytes, bytes + request.weights.size())};
  }

  ManifestInputs in;
  in.program = &request.program;
  in.fingerprint = request.fingerprint;
  in.target = target;
  in.lowered = &lowered;
  in.geometry = &geometry;
  in.ptx = &ptx;
  in.cubin = cubin ? &*cubin : nullptr;
  in.cubin_status = assembled.status;
  in.weights = weights ? &*weights : nullptr;
  in.launcher_files = launcher_file_names();
  const std::string manifest = pretty_json(boost::json::value(build_manifest(in)));

  std::vector<vyre::AotFile> files;
  files.push_back(to_aot(text_file("manifest.json", manifest)));
  files.push_back(to_aot(std::move(ptx)));
  if (cubin) files.push_back(to_aot(std::move(*cubin)));
  if (weights) files.push_back(to_aot(std::move(*weights)));
  for (const EmbeddedFile& file : launcher_sources())
    files.push_back(to_aot(text_file(fmt::format("launcher/{}", file.name), file.text)));
  return files;
}

}  // namespace vyre::cuda::aot
