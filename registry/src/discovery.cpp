// Plugin discovery: search directories and plugin file names.
#include "discovery.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <system_error>

namespace vyre::registry_detail {

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> split_path_list(const char* text) {
  std::vector<fs::path> dirs;
  if (text == nullptr) return dirs;
  std::string_view rest(text);
  while (!rest.empty()) {
    const std::size_t colon = rest.find(':');
    const std::string_view item = rest.substr(0, colon);
    if (!item.empty()) dirs.emplace_back(std::string(item));
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return dirs;
}

// <directory of libvyre_registry.so>/vyre/plugins: <prefix>/lib/vyre/plugins for an installed
// library; in a build tree, <build>/lib/vyre/plugins, a link to <build>/plugins (the top-level
// CMakeLists.txt makes it). So whoever links this library (a tool, an embedding app, the Python
// module) sees the plugins installed with it, and only a build tree's binaries see its plugins.
std::optional<fs::path> installed_plugin_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&installed_plugin_dir), &info) == 0 ||
      info.dli_fname == nullptr || info.dli_fname[0] == '\0')
    return std::nullopt;
  std::error_code ec;
  const fs::path library = fs::weakly_canonical(fs::path(info.dli_fname), ec);
  if (ec) return std::nullopt;
  const fs::path dir = library.parent_path() / "vyre" / "plugins";
  const fs::path resolved = fs::weakly_canonical(dir, ec);  // the build tree's link, resolved
  return ec ? dir : resolved;
}

bool is_plugin_name(const std::string& name) {
  return name.size() > 9 && name.starts_with("libvyre_") && name.ends_with(".so");
}

}  // namespace

std::vector<SearchDir> search_dirs(const RegistryOptions& options) {
  std::vector<SearchDir> dirs;
  for (const fs::path& dir : options.plugin_dirs) dirs.push_back({dir, true});
  if (options.use_environment)
    for (const fs::path& dir : split_path_list(std::getenv("VYRE_PLUGIN_PATH")))
      dirs.push_back({dir, true});
  if (options.use_default_dirs)
    for (const fs::path& dir : vyre_plugin_dirs()) dirs.push_back({dir, false});
  return dirs;
}

std::vector<fs::path> vyre_plugin_dirs() {
  std::vector<fs::path> dirs;
  if (auto installed = installed_plugin_dir()) dirs.push_back(*installed);
  return dirs;
}

bool in_dirs(const fs::path& file, const std::vector<fs::path>& dirs) {
  std::error_code ec;
  const fs::path parent = fs::weakly_canonical(file, ec).parent_path();
  if (ec) return false;
  for (const fs::path& dir : dirs) {
    const fs::path canonical = fs::weakly_canonical(dir, ec);
    if (!ec && canonical == parent) return true;
  }
  return false;
}

std::vector<fs::path> plugin_files(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!is_plugin_name(name)) continue;
    std::error_code type_ec;
    if (!fs::is_regular_file(it->path(), type_ec)) continue;  // follows symlinks
    files.push_back(it->path());
  }
  std::sort(files.begin(), files.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
  return files;
}

Discovery discover(const RegistryOptions& options) {
  Discovery found;
  std::set<fs::path> seen;
  std::set<fs::path> seen_dirs;  // one directory under two spellings is searched and listed once
  for (const SearchDir& dir : search_dirs(options)) {
    std::error_code ec;
    if (!fs::is_directory(dir.path, ec)) {
      found.missing.push_back(dir);
      continue;
    }
    const fs::path canonical_dir = fs::weakly_canonical(dir.path, ec);
    if (!seen_dirs.insert(ec ? dir.path : canonical_dir).second) continue;
    found.dirs.push_back(dir.path);
    for (const fs::path& file : plugin_files(dir.path)) {
      const fs::path canonical = fs::weakly_canonical(file, ec);
      const fs::path& chosen = ec ? file : canonical;
      if (seen.insert(chosen).second) found.files.push_back(chosen);
    }
  }
  return found;
}

}  // namespace vyre::registry_detail
