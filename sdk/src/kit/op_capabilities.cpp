// op_capabilities(): the capability flags a plugin's declared ops imply.
#include <string_view>

#include "vyre/plugin_kit.hpp"

namespace vyre::kit {

namespace {

// True when some op id has `part` as one of its dot-separated components ("load.f16" has "f16").
bool declares(const std::vector<std::string>& ops, std::string_view part) {
  for (const std::string& op : ops) {
    std::string_view rest = op;
    while (!rest.empty()) {
      const std::size_t dot = rest.find('.');
      if (rest.substr(0, dot) == part) return true;
      if (dot == std::string_view::npos) break;
      rest.remove_prefix(dot + 1);
    }
  }
  return false;
}

bool declares_prefix(const std::vector<std::string>& ops, std::string_view prefix) {
  for (const std::string& op : ops)
    if (op.starts_with(prefix)) return true;
  return false;
}

}  // namespace

std::uint64_t op_capabilities(const std::vector<std::string>& ops) {
  std::uint64_t caps = 0;
  if (declares(ops, "f16")) caps |= VYRE_CAP_F16;
  if (declares(ops, "bf16")) caps |= VYRE_CAP_BF16;
  if (declares(ops, "f64")) caps |= VYRE_CAP_F64;
  if (declares(ops, "u64") || declares(ops, "i64")) caps |= VYRE_CAP_INT64;
  if (declares_prefix(ops, "subgroup.")) caps |= VYRE_CAP_SUBGROUP;
  if (declares(ops, "grid_sync")) caps |= VYRE_CAP_GRID_SYNC;
  if (declares_prefix(ops, "atomic.")) caps |= VYRE_CAP_ATOMICS;
  return caps;
}

}  // namespace vyre::kit
