// manifest.json of a bundle (schema vyre-aot-manifest/1; docs/AOT.md lists every field). The
// launcher's reader (src/aot/launcher/manifest_read.cpp) reads exactly these fields.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "aot/bundle_geometry.hpp"
#include "lowering.hpp"
#include "vyre/ir.hpp"

namespace vyre::cuda::aot {

inline constexpr const char* kManifestSchema = "vyre-aot-manifest/1";

// A file of the bundle as the manifest records it.
struct BundleFile {
  std::string name;  // relative to the bundle
  std::vector<std::uint8_t> data;
};

struct ManifestInputs {
  const Program* program = nullptr;
  std::string fingerprint;
  Target target;
  const LoweredProgram* lowered = nullptr;
  const BundleGeometry* geometry = nullptr;
  const BundleFile* ptx = nullptr;
  const BundleFile* cubin = nullptr;  // null without a cubin
  std::string cubin_status;
  const BundleFile* weights = nullptr;      // null without weights
  std::vector<std::string> launcher_files;  // bundle-relative names
};

boost::json::object build_manifest(const ManifestInputs& in);

// The `.version` of a PTX module ("7.8"), or an empty string if it has none.
std::string ptx_module_version(const std::string& ptx);

// {"file", "sha256", "byte_size"} of a bundle file.
boost::json::object file_entry(const BundleFile& file);

}  // namespace vyre::cuda::aot
