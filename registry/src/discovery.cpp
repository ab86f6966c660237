// Plugin discovery: search directories and plugin file names.
#include "discovery.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <system_error>

#ifndef VYRE_PLUGIN_BUILD_DIR
#define VYRE_PLUGIN_BUILD_DIR ""
#endif

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

// <dir of /proc/self/exe>/../lib/vyre/plugins, when the link can be read.
std::optional<fs::path> installed_plugin_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return std::nullopt;
  return (exe.parent_path() / ".." / "lib" / "vyre" / "plugins").lexically_normal();
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
  const fs::path build_dir(VYRE_PLUGIN_BUILD_DIR);
  if (!build_dir.empty()) dirs.push_back(build_dir);
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
  for (const SearchDir& dir : search_dirs(options)) {
    std::error_code ec;
    if (!fs::is_directory(dir.path, ec)) {
      found.missing.push_back(dir);
      continue;
    }
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
