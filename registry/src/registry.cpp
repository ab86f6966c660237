// The Registry: loading everything discovered, lookups and instance creation.
#include "vyre/registry.hpp"

#include <algorithm>
#include <cstdlib>
#include <system_error>

#include "discovery.hpp"
#include "vyre/certificate.hpp"
#include "vyre/fingerprint.hpp"
#include "loader.hpp"

namespace vyre {

namespace fs = std::filesystem;

struct Registry::Loaded {
  registry_detail::LoadedPlugin plugin;
};

bool PluginInfo::supports(std::string_view op) const {
  return std::binary_search(op_ids.begin(), op_ids.end(), op);
}

std::vector<std::string_view> capability_names(std::uint64_t capabilities) {
  static constexpr std::string_view kNames[] = {
      "dispatch", "async", "timed", "resident", "sequence", "compiled_pipeline", "graph_replay",
      "aot", "f16", "bf16", "f64", "int64", "subgroup", "grid_sync", "atomics", "reference_oracle"};
  std::vector<std::string_view> names;
  for (std::size_t bit = 0; bit < std::size(kNames); ++bit)
    if (capabilities & (1ull << bit)) names.push_back(kNames[bit]);
  return names;
}

Registry::Registry(RegistryOptions options)
    : options_(std::move(options)), sink_(std::make_shared<LogSink>(options_.log)) {
  if (!options_.certificate_dir && options_.use_environment) {
    const char* dir = std::getenv("VYRE_CERT_DIR");
    if (dir != nullptr && *dir != '\0') options_.certificate_dir = fs::path(dir);
  }
  if (options_.use_environment) {
    const char* verify = std::getenv("VYRE_VERIFY_PLUGINS");
    if (verify != nullptr && std::string_view(verify) == "1") options_.verify_in_child = true;
  }
  load_all();
}

Registry::~Registry() = default;

void Registry::log(int level, std::string_view message) const {
  if (!*sink_) return;
  try {
    (*sink_)(level, message);
  } catch (...) {
    // Logging never fails the operation it describes.
  }
}

void Registry::load_all() {
  const std::vector<fs::path> files = plugin_files_in_order();
  const std::vector<std::optional<std::string>> failures = verification_failures(files);
  for (std::size_t i = 0; i < files.size(); ++i) load_file(files[i], failures[i]);
  std::stable_sort(plugins_.begin(), plugins_.end(), [](const PluginInfo& a, const PluginInfo& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.id < b.id;
  });
}

// Every plugin file of the search directories (registry_detail::discover), noting where it looked.
std::vector<fs::path> Registry::plugin_files_in_order() {
  registry_detail::Discovery found = registry_detail::discover(options_);
  for (const registry_detail::SearchDir& dir : found.missing) {
    log(dir.explicit_dir ? VYRE_LOG_WARN : VYRE_LOG_DEBUG,
        "plugin directory " + dir.path.string() + " does not exist; skipped");
  }
  search_dirs_ = std::move(found.dirs);
  return std::move(found.files);
}

// With verify_in_child: for each file, the reason it failed its child-process verification, if it
// did. The children run in parallel, so hanging plugins cost one timeout together, not one each.
std::vector<std::optional<std::string>> Registry::verification_failures(const std::vector<fs::path>& files) const {
  std::vector<std::optional<std::string>> failures(files.size());
  if (!options_.verify_in_child) return failures;
  const std::vector<PluginVerification> verdicts = verify_plugins(files, options_.verify);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const PluginVerification& v = verdicts[i];
    if (v.ok()) continue;
    if (v.verdict == PluginVerdict::Rejected) {
      failures[i] = v.reason;
    } else {
      failures[i] = "failed verification in a child process (" + std::string(plugin_verdict_name(v.verdict)) +
                    "): " + v.reason;
    }
  }
  return failures;
}

void Registry::load_file(const fs::path& path, const std::optional<std::string>& verification_failure) {
  try {
    if (verification_failure) throw registry_detail::Rejection{*verification_failure};
    registry_detail::LoadedPlugin plugin = registry_detail::load_plugin(path, sink_);
    if (const PluginInfo* existing = find(plugin.info.id))
      throw registry_detail::Rejection{"duplicate id '" + plugin.info.id + "' (already loaded from " +
                                       existing->path.string() + ")"};
    log(VYRE_LOG_INFO, "loaded backend '" + plugin.info.id + "' " + plugin.info.version + " (rank " +
                           std::to_string(plugin.info.rank) + ", " +
                           std::to_string(plugin.info.op_ids.size()) + " ops) from " + path.string());
    plugins_.push_back(plugin.info);
    loaded_.push_back(std::make_unique<Loaded>(Loaded{std::move(plugin)}));
  } catch (const registry_detail::Rejection& r) {
    log(VYRE_LOG_WARN, "rejected plugin " + path.string() + ": " + r.reason);
    rejected_.push_back({path, r.reason});
  }
}

const PluginInfo* Registry::find(std::string_view id) const {
  for (const PluginInfo& p : plugins_)
    if (p.id == id) return &p;
  return nullptr;
}

std::vector<std::string> Registry::ids() const {
  std::vector<std::string> out;
  for (const PluginInfo& p : plugins_) out.push_back(p.id);
  return out;
}

const Registry::Loaded& Registry::loaded(std::string_view id) const {
  for (const auto& l : loaded_)
    if (l->plugin.info.id == id) return *l;
  std::string available;
  for (const PluginInfo& p : plugins_) available += (available.empty() ? "" : ", ") + p.id;
  fail(VYRE_ERR_NOT_FOUND,
       "no backend '" + std::string(id) + "' is loaded (available: " +
           (available.empty() ? std::string("none") : available) + ")",
       "pick one of the available ids, or add the plugin's directory with --plugins DIR or "
       "VYRE_PLUGIN_PATH (`vyre backends` lists what loaded and why others were rejected)");
}

const vyre_backend_fns* Registry::fns(std::string_view id) const { return loaded(id).plugin.fns; }

std::shared_ptr<void> Registry::keep_alive(std::string_view id) const {
  return loaded(id).plugin.keep_alive;
}

host::Backend Registry::create(std::string_view id, const vyre::CreateOptions& options) const {
  const Loaded& l = loaded(id);
  return host::Backend::create(l.plugin.fns, l.plugin.keep_alive, options, l.plugin.info.id);
}

std::optional<std::string> Registry::probe(std::string_view id) const {
  try {
    create(id);
    return std::nullopt;
  } catch (const Error& e) {
    return std::string(e.what());
  }
}

host::Backend Registry::backend(std::string_view id) {
  const Loaded& l = loaded(id);  // NOT_FOUND before anything is cached
  std::lock_guard lock(mutex_);
  if (auto it = instances_.find(id); it != instances_.end()) return it->second;
  if (auto it = create_failures_.find(id); it != create_failures_.end()) throw it->second;
  try {
    host::Backend backend = host::Backend::create(l.plugin.fns, l.plugin.keep_alive, {}, l.plugin.info.id);
    if (certificates_enabled() && !l.plugin.info.is_reference_oracle())
      certified_.insert_or_assign(std::string(id), certificate_ops(l, backend));
    instances_.emplace(std::string(id), backend);
    return backend;
  } catch (const Error& e) {
    create_failures_.emplace(std::string(id), e);
    throw;
  }
}

std::vector<std::string> Registry::certificate_ops(const Loaded& l,
                                                   const host::Backend& instance) const {
  const std::string& id = l.plugin.info.id;
  try {
    const CertificateSubject subject{id, sha256_file_hex(l.plugin.info.path),
                                     device_from_profile(instance.device_profile())};
    CertificateChoice choice = choose_certificate(*options_.certificate_dir, subject);
    for (const std::string& rejection : choice.rejections) log(VYRE_LOG_WARN, rejection);
    if (choice.accepted()) {
      log(VYRE_LOG_INFO, "backend '" + id + "' routes by certificate " + choice.file.string() +
                             " (" + std::to_string(choice.ops.size()) + " certified ops)");
      return std::move(choice.ops);
    }
    log(VYRE_LOG_WARN, "backend '" + id + "' has no accepted certificate in " +
                           options_.certificate_dir->string() +
                           "; it routes no program while certificates are in force");
  } catch (const Error& e) {
    log(VYRE_LOG_WARN, "certificates of backend '" + id + "' could not be read: " + e.what());
  }
  return {};
}

std::optional<host::Backend> Registry::try_backend(const PluginInfo& plugin, std::string& failure) {
  try {
    return backend(plugin.id);
  } catch (const Error& e) {
    failure = e.what();
    return std::nullopt;
  }
}

std::optional<std::string> Registry::forced_backend() const {
  if (!options_.use_environment) return std::nullopt;
  const char* forced = std::getenv("VYRE_BACKEND");
  if (forced == nullptr || *forced == '\0') return std::nullopt;
  return std::string(forced);
}

std::vector<const PluginInfo*> Registry::candidates_in_order() const {
  std::vector<const PluginInfo*> out;
  for (const PluginInfo& p : plugins_)
    if (!p.is_reference_oracle()) out.push_back(&p);
  for (const PluginInfo& p : plugins_)
    if (p.is_reference_oracle()) out.push_back(&p);
  return out;
}

Route Registry::select() {
  if (auto forced = forced_backend()) {
    Route route{backend(*forced), find(*forced), {}, "VYRE_BACKEND=" + *forced};
    log(VYRE_LOG_INFO, "selected backend '" + *forced + "' (forced by VYRE_BACKEND)");
    return route;
  }
  std::string skipped;
  for (const PluginInfo* plugin : candidates_in_order()) {
    std::string failure;
    std::optional<host::Backend> backend = try_backend(*plugin, failure);
    if (!backend) {
      log(VYRE_LOG_WARN, "skipping backend '" + plugin->id + "': " + failure);
      skipped += "\n  " + plugin->id + ": " + failure;
      continue;
    }
    std::string reason = "best-ranked available backend (rank " + std::to_string(plugin->rank) + ")";
    if (plugin->is_reference_oracle()) {
      reason = "no other backend is available; using the reference oracle as the last resort";
      log(VYRE_LOG_WARN, "selected '" + plugin->id + "': " + reason);
    } else {
      log(VYRE_LOG_INFO, "selected backend '" + plugin->id + "': " + reason);
    }
    return Route{*backend, plugin, {}, reason};
  }
  fail(VYRE_ERR_NO_DEVICE,
       plugins_.empty() ? std::string("no backend plugin is loaded")
                        : "no loaded backend can create an instance here:" + skipped,
       "build or install a plugin (see `vyre backends` for the search directories and rejected "
       "plugins), or fix the reason its create fails");
}

}  // namespace vyre
