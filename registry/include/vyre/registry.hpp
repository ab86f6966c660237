// The plugin registry (SPEC §8): discovers backend plugins, loads and validates them, and picks a
// backend for a program.
//
// Discovery, in this order (a file reached twice through different directories loads once):
//   1. RegistryOptions::plugin_dirs (the tools' --plugins DIR);
//   2. every directory of VYRE_PLUGIN_PATH (colon-separated), with use_environment;
//   3. vyre's own plugin directory, with use_default_dirs: <dir>/vyre/plugins, where <dir> holds the
//      libvyre_registry.so in use. That is <prefix>/lib/vyre/plugins for an installed vyre (so
//      tools, embedding apps and the Python module all see the installed plugins), and the build
//      tree's plugins/ only for binaries that run with a build tree's library.
// In each directory the files named libvyre_*.so load in sorted order. A plugin that fails to load
// or to validate is rejected with a one-line reason and a code (vyre/plugin_rejection.hpp) and the
// others still load. When two plugins share an id, the one vyre ships (from vyre's own plugin
// directories) keeps it unless RegistryOptions::replace_backends names the id; otherwise the first
// one found wins. The other is rejected (duplicate_id).
//
// Selection: VYRE_BACKEND=id (with use_environment) or an explicit id must succeed or fail loudly.
// Otherwise backends are tried in rank order (lower first, ties by id); one whose create fails is
// skipped with a logged reason. Routing is per program: the best-ranked backend that creates here
// and whose routing ops cover ops_used(program, config). The reference oracle (the pinned file
// claiming VYRE_CAP_REFERENCE_ORACLE, see RegistryOptions::reference_oracle) is chosen implicitly
// only as the last resort, and the log says so.
//
// Certificates: with a certificate directory (RegistryOptions::certificate_dir or VYRE_CERT_DIR),
// creating a backend's default instance looks for a certificate of that plugin file and device,
// signed by a trusted key (RegistryOptions::trusted_keys_dir, VYRE_TRUSTED_KEYS, else
// $XDG_CONFIG_HOME/vyre/trusted-keys; see vyre/certificate.hpp); routing then uses its certified
// ops, and a backend without an accepted certificate routes nothing (the pinned reference oracle
// excepted). Every certificate not used is logged with its code. set_certified_ops() installs an
// op set directly.
//
// Hostile plugins: with RegistryOptions::verify_in_child (or VYRE_VERIFY_PLUGINS=1 or =create, with
// use_environment) every plugin file is first loaded in a child process (vyre/plugin_verify.hpp);
// one that crashes, hangs or exits there is rejected with that reason and never loaded here.
//
// Libraries stay loaded while anything made from them lives (backends, programs, buffers...), even
// after the Registry itself is gone. A Registry may be used from many threads at once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vyre/backend.hpp"
#include "vyre/ir.hpp"
#include "vyre/plugin_rejection.hpp"
#include "vyre/plugin_verify.hpp"
#include "vyre/registry_log.hpp"
#include "vyre/signing.hpp"

namespace vyre {

namespace registry_detail {
struct Rejection;
struct LoadedPlugin;
}

// A plugin that loaded and validated.
struct PluginInfo {
  std::string id;
  std::string version;
  std::uint32_t rank = 0;
  std::uint64_t capabilities = 0;
  std::vector<std::string> op_ids;  // sorted, unique
  std::filesystem::path path;       // canonical path of the shared object
  std::string sha256;               // hex SHA-256 of the file that was loaded (checked to be it)
  std::uint32_t abi_major = 0;
  std::uint32_t abi_minor = 0;
  bool pinned_oracle = false;       // this file is the pinned reference oracle (set by the registry)

  bool has(std::uint64_t capability) const { return (capabilities & capability) != 0; }
  bool claims_reference_oracle() const { return has(VYRE_CAP_REFERENCE_ORACLE); }
  // The reference oracle: it claims the capability and is the pinned file (see
  // RegistryOptions::reference_oracle). Only it is exempt from certificates and the last resort.
  bool is_reference_oracle() const { return claims_reference_oracle() && pinned_oracle; }
  bool supports(std::string_view op) const;
};

// A file that looked like a plugin but was rejected.
struct RejectedPlugin {
  std::filesystem::path path;
  std::string reason;  // one line
  PluginRejection code = PluginRejection::invalid_plugin;
};

struct RegistryOptions {
  std::vector<std::filesystem::path> plugin_dirs;  // searched first
  bool use_environment = true;   // read VYRE_PLUGIN_PATH and VYRE_BACKEND
  bool use_default_dirs = true;  // vyre's own plugin directory (see the top comment)
  // Certificates in force: routing uses each backend's accepted certificate (see
  // vyre/certificate.hpp) instead of its declared ops. Unset with use_environment: VYRE_CERT_DIR.
  std::optional<std::filesystem::path> certificate_dir;
  // Whose signatures make a certificate usable: the public keys (*.pem) in this directory. Unset:
  // VYRE_TRUSTED_KEYS with use_environment, else $XDG_CONFIG_HOME/vyre/trusted-keys (see
  // vyre/signing.hpp). Read once, when the registry is made and certificates are in force.
  std::optional<std::filesystem::path> trusted_keys_dir;
  LogSink log;                   // empty: quiet
  // Load each plugin file in a child process first and reject it if it crashes, hangs or exits
  // there (see vyre/plugin_verify.hpp). Also on with use_environment and VYRE_VERIFY_PLUGINS=1;
  // VYRE_VERIFY_PLUGINS=create also sets verify.check_create.
  bool verify_in_child = false;
  PluginVerifyOptions verify;    // the timeout, whether to try create too, the helper program
  // Ids a plugin from outside vyre's own plugin directories may take from vyre's own plugin of
  // the same id (the tools' --replace-backend ID; with use_environment also VYRE_REPLACE_BACKENDS,
  // comma-separated). Without it vyre's own plugin keeps the id and the other is rejected
  // (duplicate_id). Every replacement is logged.
  std::vector<std::string> replace_backends;
  // The reference oracle's plugin file. Unset: libvyre_reference_cpu.so in vyre's own plugin
  // directories (<prefix>/lib/vyre/plugins of the running installation, or the build tree's
  // plugins/). A plugin claiming the reference_oracle capability from any other file is treated as
  // an ordinary backend: no exemption from certificates, never the implicit last resort.
  std::optional<std::filesystem::path> reference_oracle;
};

// The backend chosen for a program (or by select()).
struct Route {
  host::Backend backend;
  const PluginInfo* plugin = nullptr;
  std::vector<std::string> ops;  // the ops the program uses (empty for select())
  std::string reason;            // why this backend, for logs and the CLI
};

// Names of the capability bits, e.g. {"dispatch", "async", ...} for the set bits.
std::vector<std::string_view> capability_names(std::uint64_t capabilities);

class Registry {
 public:
  explicit Registry(RegistryOptions options = {});
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  const std::vector<std::filesystem::path>& search_dirs() const { return search_dirs_; }
  // Loaded plugins, in selection order (rank, then id).
  const std::vector<PluginInfo>& plugins() const { return plugins_; }
  const std::vector<RejectedPlugin>& rejected() const { return rejected_; }
  const PluginInfo* find(std::string_view id) const;
  std::vector<std::string> ids() const;

  // A new instance of backend `id` with `options`. Throws VYRE_ERR_NOT_FOUND (listing the loaded
  // ids) for an unknown id, or the plugin's create error.
  host::Backend create(std::string_view id, const vyre::CreateOptions& options = {}) const;
  // Whether backend `id` can create an instance here: nullopt if it can, else the reason.
  std::optional<std::string> probe(std::string_view id) const;

  // The shared default instance of `id`, created on first use (a failed create is remembered and
  // rethrown). Throws like create(). Creating one backend blocks no other registry call; callers
  // asking for the same backend meanwhile wait for that one create.
  host::Backend backend(std::string_view id);
  // VYRE_BACKEND when set; else the best-ranked backend that creates here, the reference oracle
  // last. Throws VYRE_ERR_NO_DEVICE when nothing can be created.
  Route select();
  // The backend for `program` (see the top comment). Throws VYRE_ERR_UNSUPPORTED when no
  // available backend covers its ops, naming what each one lacks.
  Route route(const Program& program, const DispatchConfig* config = nullptr);

  // Certificate-aware routing: `ops` (the passing ops of an accepted certificate) replace the
  // declared ops of backend `id` for routing. Throws VYRE_ERR_NOT_FOUND for an unknown id.
  void set_certified_ops(std::string_view id, std::vector<std::string> ops);
  void clear_certified_ops(std::string_view id);
  bool has_certified_ops(std::string_view id) const;
  // The ops routing uses for `id`: certified when set, else declared.
  std::vector<std::string> routing_ops(std::string_view id) const;
  // Whether certificates are in force (a certificate directory is set).
  bool certificates_enabled() const { return options_.certificate_dir.has_value(); }

  // For tools that need the raw table (AOT emission without an instance) and ABI-level tests.
  const vyre_backend_fns* fns(std::string_view id) const;
  std::shared_ptr<void> keep_alive(std::string_view id) const;

  void log(int level, std::string_view message) const;

 private:
  struct Loaded;

  const Loaded& loaded(std::string_view id) const;
  void load_all();
  std::vector<std::filesystem::path> plugin_files_in_order();
  void apply_verify_environment();
  void apply_replace_environment();
  void load_trust();
  // Hash, load and validate one file, and mark the pinned oracle. Throws Rejection.
  registry_detail::LoadedPlugin load_checked(const std::filesystem::path& path) const;
  // Throws Rejection when `plugin` loses its id to an already loaded plugin; removes (and
  // rejects) the loaded one when `plugin` takes the id from it.
  void resolve_duplicate(const registry_detail::LoadedPlugin& plugin);
  void reject(const std::filesystem::path& path, const registry_detail::Rejection& rejection);
  std::vector<std::optional<registry_detail::Rejection>> verification_failures(
      const std::vector<std::filesystem::path>& files) const;
  // Load one file, or reject it with `verification_failure` when it failed verification.
  void load_file(const std::filesystem::path& path,
                 const std::optional<registry_detail::Rejection>& verification_failure);
  std::optional<std::string> forced_backend() const;
  std::vector<const PluginInfo*> candidates_in_order() const;
  // The ranking loop of select() (ops null) and route(): the first candidate, in rank order with
  // the oracle last, that covers `ops` and creates here; nullopt with each skip in `why_not`.
  std::optional<Route> best_available(const std::vector<std::string>* ops, std::string& why_not);
  // The cached instance, or the reason it cannot be created.
  std::optional<host::Backend> try_backend(const PluginInfo& plugin, std::string& failure);
  // With certificates in force: the certified ops of the accepted certificate of a new instance
  // (empty when none matches). Called without mutex_ held.
  std::vector<std::string> certificate_ops(const Loaded& loaded, const host::Backend& instance) const;

  RegistryOptions options_;
  std::shared_ptr<LogSink> sink_;  // shared with the loaded libraries' log routes
  std::vector<std::filesystem::path> search_dirs_;
  std::vector<PluginInfo> plugins_;
  std::vector<RejectedPlugin> rejected_;
  std::vector<std::unique_ptr<Loaded>> loaded_;  // parallel to nothing; looked up by id
  std::vector<std::filesystem::path> own_dirs_;   // vyre's own plugin directories
  std::vector<std::filesystem::path> oracle_files_;  // where the pinned oracle may be (canonical)
  TrustedKeys trusted_keys_;                         // with certificates in force

  // The default instance of one backend: created once (outside mutex_), or the error it failed with.
  struct DefaultInstance {
    std::once_flag once;
    std::optional<host::Backend> backend;
    std::optional<Error> failure;
  };

  mutable std::mutex mutex_;  // guards the maps below (not the DefaultInstances they point to)
  std::map<std::string, std::shared_ptr<DefaultInstance>, std::less<>> instances_;
  std::map<std::string, std::vector<std::string>, std::less<>> certified_;
};

}  // namespace vyre
