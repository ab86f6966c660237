// The standalone launcher's sources (src/aot/launcher/), embedded verbatim at build time by
// embed_launcher.cmake, so that every bundle's launcher/ is exactly the code that vyre-launch is
// built from.
#pragma once

#include <span>
#include <string_view>

namespace vyre::cuda::aot {

struct EmbeddedFile {
  std::string_view name;  // relative to launcher/, e.g. "main.cpp", "CMakeLists.txt"
  std::string_view text;
};

// Every launcher file, sorted by name.
std::span<const EmbeddedFile> launcher_sources();

}  // namespace vyre::cuda::aot
