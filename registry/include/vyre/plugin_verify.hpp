// Verifying plugins in a child process, so that a plugin that crashes (SIGSEGV, abort) or hangs
// while it loads, registers or creates an instance cannot take the host down with it.
//
// verify_plugin() starts a child (posix_spawn of the running executable, /proc/self/exe, or of
// PluginVerifyOptions::helper) in a hidden mode that libvyre_registry provides to every program
// that links it: a load-time hook that runs before main() when argv[1] is kPluginVerifyChildMarker
// and the environment has VYRE_PLUGIN_VERIFY_CHILD=1. The child loads the plugin exactly as the
// registry does (dlopen, vyre_backend_register, the registry's validation), optionally creates and
// destroys one instance, and reports on a pipe after each stage. The parent waits at most
// `timeout`, kills the child's process group on expiry, and turns what it saw into a verdict:
// the registration summary, or the reason (a signal, a timeout, an exit, or the registry's
// rejection), naming the stage it happened in.
//
//   vyre::PluginVerification v = vyre::verify_plugin("build/plugins/libvyre_cuda.so");
//   if (!v.ok()) std::puts(v.reason.c_str());   // "crashed with SIGSEGV (...) in vyre_backend_register"
//
// The registry uses it with RegistryOptions::verify_in_child (or VYRE_VERIFY_PLUGINS=1), and
// `vyre plugins verify [DIR]` prints one verdict per plugin file.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vyre {

struct RegistryOptions;

// argv[1] of the verifier child (with VYRE_PLUGIN_VERIFY_CHILD=1 in its environment).
inline constexpr std::string_view kPluginVerifyChildMarker = "--vyre-internal-plugin-verify-child";

struct PluginVerifyOptions {
  std::chrono::milliseconds timeout{10000};  // per plugin, for all of its stages together
  bool check_create = false;  // also create (and destroy) one default instance in the child
  // The program the child runs; it must link libvyre_registry (every vyre tool does). Empty: the
  // running executable.
  std::filesystem::path helper;
};

enum class PluginVerdict : std::uint8_t {
  Ok,           // loaded and registered (and, with check_create, create returned)
  Rejected,     // the registry's validation refused it (the reason is the registry's)
  Crashed,      // the child died of a signal
  TimedOut,     // no verdict within the timeout; the child was killed
  Exited,       // the child exited before finishing (the plugin called exit, or a sanitizer did)
  SpawnFailed,  // the child could not be started, or is not a verifier (no registry hook)
};

std::string_view plugin_verdict_name(PluginVerdict verdict);  // "ok", "crashed", "timeout", ...

// What a plugin registered, as the child saw it.
struct PluginSummary {
  std::string id;
  std::string version;
  std::uint32_t rank = 0;
  std::uint64_t capabilities = 0;
  std::uint32_t abi_major = 0;
  std::uint32_t abi_minor = 0;
  std::uint64_t op_count = 0;
};

struct PluginVerification {
  std::filesystem::path path;
  PluginVerdict verdict = PluginVerdict::SpawnFailed;
  // The stage the child was in when the verdict was made: "load" (dlopen, the library's static
  // constructors), "register" (vyre_backend_register and the validation of what it returned),
  // "create" (create, device_profile, destroy), or "done".
  std::string stage;
  int signal = 0;       // Crashed: the signal number
  int exit_status = 0;  // Exited: the exit status
  std::optional<PluginSummary> summary;  // set once registration succeeded
  // With check_create: "ok (<device name>)" or "failed: <message>" (a failed create is not a
  // failed verification: a GPU plugin on a machine without a driver must fail create cleanly).
  std::string create;
  std::string reason;       // one line: why the verdict is not Ok ("" when Ok)
  std::string output_tail;  // the last lines the child printed (stdout and stderr)

  bool ok() const { return verdict == PluginVerdict::Ok; }
};

// Verify one plugin file in a child process. Never throws for anything the plugin does; a child
// that cannot be started is a SpawnFailed verdict.
PluginVerification verify_plugin(const std::filesystem::path& plugin,
                                 const PluginVerifyOptions& options = {});

// Verify several files, each in its own child, all at once. Results in the order of `plugins`.
std::vector<PluginVerification> verify_plugins(const std::vector<std::filesystem::path>& plugins,
                                               const PluginVerifyOptions& options = {});

// The plugin files a Registry with `options` would load, in its order (each file once), without
// loading any of them. Directories that do not exist are skipped.
std::vector<std::filesystem::path> discover_plugin_files(const RegistryOptions& options);

// "SIGSEGV (Segmentation fault)".
std::string describe_signal(int signal);

}  // namespace vyre
