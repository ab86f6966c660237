// vyre backends: what loaded, what was rejected and why, and whether each backend runs here.
#include <fmt/core.h>

#include <boost/json.hpp>
#include <cstring>
#include <iostream>
#include <optional>

#include "cli.hpp"
#include "vyre/json_text.hpp"

namespace vyre::cli {

const std::string_view kBackendsHelp = R"(usage: vyre [global options] backends [--available | --json]

Lists the plugin search directories, every backend that loaded (id, version, rank, ABI version,
capability flags, op count, file, whether it is the pinned reference oracle) with whether an
instance can be created on this machine (and why not), every device it can run on (ordinal,
name, memory, compute capability; cuda opens the one VYRE_CUDA_DEVICE_ORDINAL names), and every
plugin file that was rejected, with its code and one-line reason.
With --available, prints only the ids of the backends that can create an instance here, one
per line, in selection order (for scripts).
With --json, prints the same as one JSON object (schema "vyre-backends/1", for scripts):
  {"schema", "abi": {"major", "minor"}, "search_dirs": [...],
   "backends": [{"id", "version", "rank", "abi": {"major", "minor"}, "capabilities": [names],
                 "op_count", "routing_op_count", "file", "reference_oracle": "pinned"|"claimed"|
                 "no", "available", "device" (when available), "devices" (when available: every
                 device an instance can be created on, [{"ordinal", "name", "kind": "gpu"|"cpu",
                 "memory_bytes", "compute_capability": "9.0", "target"}]), "unavailable":
                 {"code", "reason"} (when not)}],
   "rejected": [{"file", "code", "reason"}]}
Codes are stable: rejection codes as in vyre/plugin_rejection.hpp, unavailable codes the status
names of the VYRE_ERR_* codes ("no_device", ...).
Exit status: 0 (also when some plugins were rejected), 1 when the registry itself fails.
)";

namespace {

std::string join_names(const std::vector<std::string_view>& names) {
  std::string out;
  for (std::string_view n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out.empty() ? "none" : out;
}

// Whether a backend can create an instance here: its device name, or why not. Uses the
// registry's default instance, which is also what picks the backend's certificate when
// certificates are in force.
struct Availability {
  std::optional<std::string> device;      // set when it creates
  std::optional<Error> failure;           // set when it does not
  std::string profile_failure;            // created, but device_profile failed
  std::vector<vyre_device_profile> devices;  // every device it can run on (Backend::devices)
  std::string devices_failure;            // created, but enumeration failed
};

Availability availability(Registry& registry, const PluginInfo& plugin) {
  Availability out;
  try {
    host::Backend backend = registry.backend(plugin.id);
    try {
      const vyre_device_profile profile = backend.device_profile();
      out.device = shown(std::string_view(profile.name, strnlen(profile.name, sizeof profile.name)));
    } catch (const Error& e) {
      out.device = "";
      out.profile_failure = e.what();
    }
    try {
      out.devices = backend.devices();
    } catch (const Error& e) {
      out.devices_failure = e.what();
    }
  } catch (const Error& e) {
    out.failure = e;
  }
  return out;
}

// "ok (device name)" or "unavailable: reason".
std::string describe(const Availability& a) {
  if (a.failure) return fmt::format("unavailable: {}", a.failure->what());
  if (!a.profile_failure.empty()) return fmt::format("ok (device profile failed: {})", a.profile_failure);
  return fmt::format("ok ({})", *a.device);
}

std::string profile_name(const vyre_device_profile& p) {
  return shown(std::string_view(p.name, strnlen(p.name, sizeof p.name)));
}

// "0: NVIDIA H200, 139.8 GiB, compute 9.0 (sm_90)".
std::string describe_device(std::size_t ordinal, const vyre_device_profile& p) {
  std::string line = fmt::format("{}: {}, {:.1f} GiB", ordinal, profile_name(p),
                                 static_cast<double>(p.total_memory_bytes) / static_cast<double>(1ull << 30));
  if (p.kind == VYRE_DEVICE_KIND_GPU) line += fmt::format(", compute {}.{}", p.compute_major, p.compute_minor);
  return line + fmt::format(" ({})", shown(std::string_view(p.target, strnlen(p.target, sizeof p.target))));
}

boost::json::array devices_json(const std::vector<vyre_device_profile>& devices) {
  boost::json::array out;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const vyre_device_profile& p = devices[i];
    out.push_back({{"ordinal", i},
                   {"name", profile_name(p)},
                   {"kind", p.kind == VYRE_DEVICE_KIND_GPU ? "gpu" : "cpu"},
                   {"memory_bytes", p.total_memory_bytes},
                   {"compute_capability", fmt::format("{}.{}", p.compute_major, p.compute_minor)},
                   {"target", shown(std::string_view(p.target, strnlen(p.target, sizeof p.target)))}});
  }
  return out;
}

std::string_view oracle_role(const PluginInfo& p) {
  if (p.is_reference_oracle()) return "pinned";
  return p.claims_reference_oracle() ? "claimed" : "no";
}

boost::json::object abi_version(std::uint32_t major, std::uint32_t minor) {
  return {{"major", major}, {"minor", minor}};
}

boost::json::object backend_json(Registry& registry, const PluginInfo& p) {
  const Availability a = availability(registry, p);  // first: it picks the certificate
  boost::json::array capabilities;
  for (std::string_view name : capability_names(p.capabilities)) capabilities.emplace_back(name);
  boost::json::object out{{"id", p.id},
                          {"version", shown(p.version)},
                          {"rank", p.rank},
                          {"abi", abi_version(p.abi_major, p.abi_minor)},
                          {"capabilities", std::move(capabilities)},
                          {"op_count", p.op_ids.size()},
                          {"routing_op_count", registry.routing_ops(p.id).size()},
                          {"file", shown(p.path.string())},
                          {"reference_oracle", oracle_role(p)},
                          {"available", !a.failure.has_value()}};
  if (a.failure) {
    out["unavailable"] = {{"code", status_name(a.failure->code())}, {"reason", shown(a.failure->what())}};
  } else {
    out["device"] = *a.device;
    out["devices"] = devices_json(a.devices);
  }
  return out;
}

int print_json(Registry& registry) {
  boost::json::array dirs;
  for (const auto& dir : registry.search_dirs()) dirs.emplace_back(shown(dir.string()));
  boost::json::array backends;
  for (const PluginInfo& p : registry.plugins()) backends.push_back(backend_json(registry, p));
  boost::json::array rejected;
  for (const RejectedPlugin& r : registry.rejected())
    rejected.push_back({{"file", shown(r.path.string())}, {"code", plugin_rejection_name(r.code)}, {"reason", shown(r.reason)}});
  const boost::json::object root{{"schema", "vyre-backends/1"},
                                 {"abi", abi_version(VYRE_ABI_VERSION_MAJOR, VYRE_ABI_VERSION_MINOR)},
                                 {"search_dirs", std::move(dirs)},
                                 {"backends", std::move(backends)},
                                 {"rejected", std::move(rejected)}};
  write_indented_json(std::cout, root);
  std::cout << '\n';
  return kExitOk;
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
  const bool json = args.take_flag("--json");
  args.finish("vyre backends");
  const std::unique_ptr<Registry> registry = make_registry(global);
  if (json) return print_json(*registry);
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
    const Availability a = availability(*registry, p);  // first: it picks the certificate
    fmt::print("  {} {}  rank {}  abi {}.{}  {}\n", shown(p.id), shown(p.version), p.rank, p.abi_major,
               p.abi_minor, op_counts(*registry, p));
    fmt::print("    capabilities: {}\n", join_names(capability_names(p.capabilities)));
    fmt::print("    file: {}\n", shown(p.path.string()));
    if (p.is_reference_oracle()) fmt::print("    reference oracle: pinned (the one vyre ships)\n");
    else if (p.claims_reference_oracle())
      fmt::print("    reference oracle: claimed but not pinned; treated as an ordinary backend\n");
    fmt::print("    create: {}\n", shown(describe(a)));
    if (!a.devices_failure.empty()) fmt::print("    devices: listing failed: {}\n", shown(a.devices_failure));
    for (std::size_t i = 0; i < a.devices.size(); ++i) fmt::print("    device {}\n", describe_device(i, a.devices[i]));
  }
  fmt::print("rejected ({}):\n", registry->rejected().size());
  for (const RejectedPlugin& r : registry->rejected())
    fmt::print("  {}: [{}] {}\n", shown(r.path.string()), plugin_rejection_name(r.code), shown(r.reason));
  return kExitOk;
}

}  // namespace vyre::cli
