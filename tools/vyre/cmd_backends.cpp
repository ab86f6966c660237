// vyre backends: what loaded, what was rejected and why, and whether each backend runs here.
#include <fmt/core.h>

#include <cstring>

#include "cli.hpp"

namespace vyre::cli {

const std::string_view kBackendsHelp = R"(usage: vyre [global options] backends [--available]

Lists the plugin search directories, every backend that loaded (id, version, rank, ABI version,
capability flags, op count, file, whether it is the pinned reference oracle) with whether an
instance can be created on this machine (and why not), and every plugin file that was rejected,
with its code and one-line reason.
With --available, prints only the ids of the backends that can create an instance here, one
per line, in selection order (for scripts).
Exit status: 0 (also when some plugins were rejected), 1 when the registry itself fails.
)";

namespace {

std::string join_names(const std::vector<std::string_view>& names) {
  std::string out;
  for (std::string_view n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out.empty() ? "none" : out;
}

// "ok (device name)" or "unavailable: reason". Uses the registry's default instance, which is
// also what picks the backend's certificate when certificates are in force.
std::string availability(Registry& registry, const PluginInfo& plugin) {
  try {
    host::Backend backend = registry.backend(plugin.id);
    try {
      const vyre_device_profile profile = backend.device_profile();
      const std::string_view name(profile.name, strnlen(profile.name, sizeof profile.name));
      return fmt::format("ok ({})", shown(name));
    } catch (const Error& e) {
      return fmt::format("ok (device profile failed: {})", e.what());
    }
  } catch (const Error& e) {
    return fmt::format("unavailable: {}", e.what());
  }
}

// "416 ops declared", or with certificates "certified 410/416 ops".
std::string op_counts(const Registry& registry, const PluginInfo& plugin) {
  if (registry.has_certified_ops(plugin.id))
    return fmt::format("certified {}/{} ops", registry.routing_ops(plugin.id).size(),
                       plugin.op_ids.size());
  if (registry.certificates_enabled() && !plugin.is_reference_oracle())
    return fmt::format("{} ops declared (no accepted certificate)", plugin.op_ids.size());
  return fmt::format("{} ops declared", plugin.op_ids.size());
}

}  // namespace

int run_backends(const GlobalOptions& global, Args& args) {
  const bool only_available = args.take_flag("--available");
  args.finish("vyre backends");
  const std::unique_ptr<Registry> registry = make_registry(global);
  if (only_available) {
    for (const PluginInfo& p : registry->plugins())
      if (!registry->probe(p.id)) fmt::print("{}\n", shown(p.id));
    return kExitOk;
  }
  fmt::print("search directories:\n");
  for (const auto& dir : registry->search_dirs()) fmt::print("  {}\n", shown(dir.string()));
  if (registry->search_dirs().empty()) fmt::print("  (none exist)\n");

  fmt::print("backends ({} loaded, selection order):\n", registry->plugins().size());
  for (const PluginInfo& p : registry->plugins()) {
    const std::string create = availability(*registry, p);  // first: it picks the certificate
    fmt::print("  {} {}  rank {}  abi {}.{}  {}\n", shown(p.id), shown(p.version), p.rank, p.abi_major,
               p.abi_minor, op_counts(*registry, p));
    fmt::print("    capabilities: {}\n", join_names(capability_names(p.capabilities)));
    fmt::print("    file: {}\n", shown(p.path.string()));
    if (p.is_reference_oracle()) fmt::print("    reference oracle: pinned (the one vyre ships)\n");
    else if (p.claims_reference_oracle())
      fmt::print("    reference oracle: claimed but not pinned; treated as an ordinary backend\n");
    fmt::print("    create: {}\n", shown(create));
  }
  fmt::print("rejected ({}):\n", registry->rejected().size());
  for (const RejectedPlugin& r : registry->rejected())
    fmt::print("  {}: [{}] {}\n", shown(r.path.string()), plugin_rejection_name(r.code), shown(r.reason));
  return kExitOk;
}

}  // namespace vyre::cli
