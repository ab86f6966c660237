// Where plugins are looked for, and which files in a directory are plugins.
#pragma once

#include <filesystem>
#include <vector>

#include "vyre/registry.hpp"

namespace vyre::registry_detail {

struct SearchDir {
  std::filesystem::path path;
  bool explicit_dir = false;  // from options or VYRE_PLUGIN_PATH: warn when missing
};

std::vector<SearchDir> search_dirs(const RegistryOptions& options);

// vyre's own plugin directory, whether or not it is searched: <prefix>/lib/vyre/plugins next to
// the libvyre_registry.so in use, which is the build tree's plugins/ for a build tree's library. A plugin file in one of them is
// what vyre ships: it keeps its id against same-id plugins from elsewhere unless the user allows a
// replacement, and the oracle is pinned there.
std::vector<std::filesystem::path> vyre_plugin_dirs();

// Whether `file` (any path to it) lies directly in one of `dirs` (compared canonically).
bool in_dirs(const std::filesystem::path& file, const std::vector<std::filesystem::path>& dirs);

// Files named libvyre_*.so directly in `dir`, sorted by name.
std::vector<std::filesystem::path> plugin_files(const std::filesystem::path& dir);

// What a registry with `options` would load, without loading anything.
struct Discovery {
  std::vector<std::filesystem::path> files;  // every plugin file, in search order, each canonical path once
  std::vector<std::filesystem::path> dirs;   // the search directories that exist
  std::vector<SearchDir> missing;            // those that do not
};
Discovery discover(const RegistryOptions& options);

}  // namespace vyre::registry_detail
