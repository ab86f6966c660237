// The Registry: loading everything discovered, lookups and instance creation.
#include "vyre/registry.hpp"

#include <algorithm>
#include <cstdlib>
#include <system_error>

#include "discovery.hpp"
#include "loader.hpp"
#include "plugin_identity.hpp"
#include "vyre/certificate_trust.hpp"
#include "vyre/fingerprint.hpp"

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
      "aot", "f16", "bf16", "f64", "int64", "subgroup", "grid_sync", "atomics", "reference_oracle",
      "external_memory", "deadline", "cancel"};
  static_assert((1ull << std::size(kNames)) - 1 == VYRE_CAP_ALL_V1_1, "one name per capability bit");
  std::vector<std::string_view> names;
  for (std::size_t bit = 0; bit < std::size(kNames); ++bit)
    if (capabilities & (1ull << bit)) names.push_back(kNames[bit]);
  return names;
}

namespace {

// Where the reference oracle may be: RegistryOptions::reference_oracle, else vyre's own
// libvyre_reference_cpu.so in each of its plugin directories; canonical, as loaded paths are.
std::vector<fs::path> pinned_oracle_files(const RegistryOptions& options, const std::vector<fs::path>& own_dirs) {
  std::vector<fs::path> files;
  if (options.reference_oracle) files.push_back(*options.reference_oracle);
  else
    for (const fs::path& dir : own_dirs) files.push_back(dir / "libvyre_reference_cpu.so");
  for (fs::path& file : files) {
    std::error_code ec;
    if (fs::path canonical = fs::weakly_canonical(file, ec); !ec) file = std::move(canonical);
  }
  return files;
}

}  // namespace

Registry::Registry(RegistryOptions options)
    : options_(std::move(options)), sink_(std::make_shared<LogSink>(options_.log)) {
  if (!options_.certificate_dir && options_.use_environment) {
    const char* dir = std::getenv("VYRE_CERT_DIR");
    if (dir != nullptr && *dir != '\0') options_.certificate_dir = fs::path(dir);
  }
  if (options_.use_environment) apply_verify_environment();
  if (certificates_enabled()) load_trust();
  if (options_.use_environment) apply_replace_environment();
  own_dirs_ = registry_detail::vyre_plugin_dirs();
  oracle_files_ = pinned_oracle_files(options_, own_dirs_);
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

// VYRE_VERIFY_PLUGINS: unset, empty or 0: as the options say; 1: verify every plugin file in a
// child process; create: also create an instance there. Anything else verifies, with a warning.
void Registry::apply_verify_environment() {
  const char* value = std::getenv("VYRE_VERIFY_PLUGINS");
  if (value == nullptr) return;
  const std::string_view mode(value);
  if (mode.empty() || mode == "0") return;
  options_.verify_in_child = true;
  if (mode == "create") options_.verify.check_create = true;
  else if (mode != "1")
    log(VYRE_LOG_WARN, "VYRE_VERIFY_PLUGINS='" + std::string(mode).substr(0, 32) +
                           "' is not 0, 1 or create; verifying plugin registration (as with 1)");
}

// The trusted keys: RegistryOptions::trusted_keys_dir, else VYRE_TRUSTED_KEYS (with
// use_environment), else the per-user default.
void Registry::load_trust() {
  std::filesystem::path dir;
  try {
    dir = options_.trusted_keys_dir ? *options_.trusted_keys_dir
          : options_.use_environment ? default_trusted_keys_dir()
                                     : vyre_config_dir() / "trusted-keys";
  } catch (const Error& e) {
    log(VYRE_LOG_WARN, std::string("no trusted-keys directory: ") + e.what() +
                           "; no certificate can be accepted");
    return;
  }
  trusted_keys_ = load_trusted_keys(dir);
  for (const std::string& problem : trusted_keys_.problems) log(VYRE_LOG_WARN, "trusted keys: " + problem);
  log(trusted_keys_.keys.empty() ? VYRE_LOG_WARN : VYRE_LOG_INFO,
      "certificates are in force; " + std::to_string(trusted_keys_.keys.size()) + " trusted key(s) in " +
          dir.string() + (trusted_keys_.keys.empty() ? " (so no certificate can be accepted)" : ""));
}

// VYRE_REPLACE_BACKENDS=id,id: as RegistryOptions::replace_backends (added to it).
void Registry::apply_replace_environment() {
  const char* value = std::getenv("VYRE_REPLACE_BACKENDS");
  if (value == nullptr) return;
  std::string_view rest(value);
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    if (const std::string_view id = rest.substr(0, comma); !id.empty()) options_.replace_backends.emplace_back(id);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
}

void Registry::load_all() {
  const std::vector<fs::path> files = plugin_files_in_order();
  const std::vector<std::optional<registry_detail::Rejection>> failures = verification_failures(files);
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

// With verify_in_child: for each file, why it failed its child-process verification, if it did.
// The children run in parallel, so hanging plugins cost one timeout together, not one each.
std::vector<std::optional<registry_detail::Rejection>> Registry::verification_failures(
    const std::vector<fs::path>& files) const {
  std::vector<std::optional<registry_detail::Rejection>> failures(files.size());
  if (!options_.verify_in_child) return failures;
  const std::vector<PluginVerification> verdicts = verify_plugins(files, options_.verify);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const PluginVerification& v = verdicts[i];
    if (v.ok()) continue;
    std::string reason = v.reason;
    if (v.verdict != PluginVerdict::Rejected)
      reason = "failed verification in a child process (" + std::string(plugin_verdict_name(v.verdict)) + "): " + reason;
    failures[i] = registry_detail::Rejection{std::move(reason), v.code};
  }
  return failures;
}

void Registry::load_file(const fs::path& path, const std::optional<registry_detail::Rejection>& verification_failure) {
  try {
    if (verification_failure) throw *verification_failure;
    registry_detail::LoadedPlugin plugin = load_checked(path);
    resolve_duplicate(plugin);
    log(VYRE_LOG_INFO, "loaded backend '" + plugin.info.id + "' " + plugin.info.version + " (rank " +
                           std::to_string(plugin.info.rank) + ", " +
                           std::to_string(plugin.info.op_ids.size()) + " ops) from " + path.string());
    plugins_.push_back(plugin.info);
    loaded_.push_back(std::make_unique<Loaded>(Loaded{std::move(plugin)}));
  } catch (const registry_detail::Rejection& r) {
    reject(path, r);
  }
}

void Registry::reject(const fs::path& path, const registry_detail::Rejection& r) {
  log(VYRE_LOG_WARN, "rejected plugin " + path.string() + " [" + std::string(plugin_rejection_name(r.code)) +
                         "]: " + r.reason);
  rejected_.push_back({path, r.reason, r.code});
}

// The SHA-256 recorded for a plugin must be that of the bytes actually loaded: the path must name
// the same unchanged file before hashing and after loading, and that file must be the one mapped.
registry_detail::LoadedPlugin Registry::load_checked(const fs::path& path) const {
  const std::optional<registry_detail::FileIdentity> before = registry_detail::identity_of(path);
  std::string sha256;
  try {
    sha256 = sha256_file_hex(path);
  } catch (const Error& e) {
    throw registry_detail::Rejection{std::string("cannot read: ") + e.what()};
  }
  registry_detail::LoadedPlugin plugin = registry_detail::load_plugin(path, sink_);
  const std::optional<registry_detail::FileIdentity> after = registry_detail::identity_of(path);
  if (!before || before != after || !registry_detail::is_mapped(*before))
    throw registry_detail::Rejection{"the file changed while it was being loaded (hashed one file, mapped "
                                     "another). Fix: do not modify plugin files while a program loads "
                                     "them; check who can write " + path.parent_path().string(),
                                     PluginRejection::changed_while_loading};
  plugin.info.sha256 = std::move(sha256);
  plugin.info.pinned_oracle = std::find(oracle_files_.begin(), oracle_files_.end(), path) != oracle_files_.end();
  if (plugin.info.claims_reference_oracle() && !plugin.info.pinned_oracle)
    log(VYRE_LOG_WARN, "backend '" + plugin.info.id + "' claims the reference_oracle capability but " +
                           path.string() + " is not the pinned oracle" +
                           (oracle_files_.empty() ? std::string() : " (" + oracle_files_.front().string() + ")") +
                           "; it is an ordinary backend: it needs a certificate while certificates are in "
                           "force and is never the implicit last resort");
  return plugin;
}

void Registry::resolve_duplicate(const registry_detail::LoadedPlugin& plugin) {
  const std::string& id = plugin.info.id;
  const PluginInfo* existing = find(id);
  if (existing == nullptr) return;
  const bool allowed = std::find(options_.replace_backends.begin(), options_.replace_backends.end(), id) !=
                       options_.replace_backends.end();
  const bool new_is_own = registry_detail::in_dirs(plugin.info.path, own_dirs_);
  const bool old_is_own = registry_detail::in_dirs(existing->path, own_dirs_);
  // vyre's own plugin keeps its id unless a replacement is allowed; otherwise the first found.
  const bool new_wins = new_is_own != old_is_own && new_is_own != allowed;
  const fs::path& winner = new_wins ? plugin.info.path : existing->path;
  const fs::path loser = new_wins ? existing->path : plugin.info.path;
  std::string reason;
  if (new_is_own == old_is_own) {
    reason = "duplicate id '" + id + "' (already loaded from " + winner.string() + ")";
  } else if (allowed) {
    reason = "duplicate id '" + id + "': replaced by " + winner.string() + " (allowed by --replace-backend " + id + ")";
    log(VYRE_LOG_WARN, "backend '" + id + "' from " + winner.string() + " replaces vyre's own from " +
                           loser.string() + " (allowed by --replace-backend " + id + ")");
  } else {
    reason = "duplicate id '" + id + "': vyre's own backend " + winner.string() +
             " keeps the id. Fix: pass --replace-backend " + id +
             " (RegistryOptions::replace_backends, VYRE_REPLACE_BACKENDS) to use this plugin instead";
  }
  if (!new_wins) throw registry_detail::Rejection{reason, PluginRejection::duplicate_id};
  plugins_.erase(std::find_if(plugins_.begin(), plugins_.end(), [&](const PluginInfo& p) { return p.id == id; }));
  loaded_.erase(std::find_if(loaded_.begin(), loaded_.end(), [&](const auto& l) { return l->plugin.info.id == id; }));
  reject(loser, registry_detail::Rejection{reason, PluginRejection::duplicate_id});
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
  std::shared_ptr<DefaultInstance> slot;
  {
    std::lock_guard lock(mutex_);
    auto it = instances_.find(id);
    if (it == instances_.end()) it = instances_.emplace(std::string(id), std::make_shared<DefaultInstance>()).first;
    slot = it->second;
  }
  // The registry lock is not held while the plugin creates: other backends (and everything
  // else) go on; callers wanting this same backend wait here for the one create.
  std::call_once(slot->once, [&] {
    try {
      host::Backend backend = host::Backend::create(l.plugin.fns, l.plugin.keep_alive, {}, l.plugin.info.id);
      if (certificates_enabled() && !l.plugin.info.is_reference_oracle()) {
        std::vector<std::string> ops = certificate_ops(l, backend);
        std::lock_guard lock(mutex_);
        certified_.insert_or_assign(std::string(id), std::move(ops));
      }
      slot->backend = std::move(backend);
    } catch (const Error& e) {
      slot->failure = e;
    } catch (const std::exception& e) {
      slot->failure = Error::make(VYRE_ERR_INTERNAL, std::string("creating backend '") + std::string(id) + "' failed: " + e.what(),
                                  "report the plugin");
    }
  });
  if (slot->failure) throw *slot->failure;
  return *slot->backend;
}

std::vector<std::string> Registry::certificate_ops(const Loaded& l,
                                                   const host::Backend& instance) const {
  const std::string& id = l.plugin.info.id;
  try {
    const CertificateSubject subject{id, l.plugin.info.sha256,
                                     device_from_profile(instance.device_profile())};
    CertificateChoice choice = choose_certificate(*options_.certificate_dir, subject, trusted_keys_);
    for (const RejectedCertificate& r : choice.rejections)
      log(VYRE_LOG_WARN, "certificate " + r.file.string() + " ignored for '" + id + "' [" +
                             std::string(certificate_rejection_name(r.code)) + "]: " + r.reason);
    if (choice.accepted()) {
      log(VYRE_LOG_INFO, "backend '" + id + "' routes by certificate " + choice.file.string() + " (" +
                             std::to_string(choice.ops.size()) + " certified ops, signed by key " +
                             choice.key_id.substr(0, 16) + "...)");
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

}  // namespace vyre
