#include "errors.hpp"
#include "harness.hpp"
#include "manifest.hpp"

namespace vyre::fuzz {

bool aot_manifest(Input bytes) {
  const std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  try {
    const vyre_launch::Manifest manifest = vyre_launch::parse_manifest(text, "manifest.json");
    vyre_launch::validate_manifest(manifest);
    (void)vyre_launch::device_bytes(manifest);
    (void)vyre_launch::metrics_buffer(manifest);
    (void)vyre_launch::first_input_buffer(manifest);
  } catch (const vyre_launch::LaunchError& e) {
    require(std::string_view(e.what()).find("Fix:") != std::string_view::npos, "aot_manifest",
            "a manifest error without \"Fix:\": " + printable(e.what()));
    return false;
  }
  return true;
}

}  // namespace vyre::fuzz
