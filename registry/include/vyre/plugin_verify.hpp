// Verifying plugins in a child process, so that a plugin that crashes (SIGSEGV, abort), hangs or
// exits while it loads, registers or creates an instance cannot take the host down with it.
//
// verify_plugin() starts a verifier (posix_spawn of the running executable with the host's own
// argv and environment, or of PluginVerifyOptions::helper): nothing in its argv or environment
// says "verification". It recognises itself by a control socket it inherits at a random
// descriptor number (registry/src/verify_protocol.hpp), becomes the subreaper of its subtree and
// forks the verifier child, which loads the plugin exactly as the registry does (dlopen,
// vyre_backend_register, the registry's validation), optionally creates and destroys one
// instance, unloads it, and reports on a pipe before each stage. The verdict needs both the
// report and the exit: "ok" only when the report is complete, its last line carries the nonce the
// host chose for this run, the child exited with status 0, and nothing it started was still
// running. At the timeout (or when the host dies) the supervisor kills every process below it,
// including ones that called setsid() or double-forked; the host kills the supervisor's process
// group if it does not finish within a grace period.
//
//   vyre::PluginVerification v = vyre::verify_plugin("build/plugins/libvyre_cuda.so");
//   if (!v.ok()) std::puts(v.reason.c_str());   // "crashed with SIGSEGV (...) in vyre_backend_register"
//
// The registry uses it with RegistryOptions::verify_in_child (or VYRE_VERIFY_PLUGINS=1, or
// VYRE_VERIFY_PLUGINS=create to also create an instance), and `vyre plugins verify [DIR]` prints
// one verdict per plugin file.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vyre/plugin_rejection.hpp"

namespace vyre {

struct RegistryOptions;

struct PluginVerifyOptions {
  std::chrono::milliseconds timeout{10000};  // per plugin, for all of its stages together
  bool check_create = false;  // also create (and destroy) one default instance in the child
  // The program the verifier runs; it must link libvyre_registry statically (every vyre tool does)
  // and is started with no arguments. Empty: the running executable, with this process's argv
  // (refused with SpawnFailed when the registry is not part of the executable, e.g. in Python).
  std::filesystem::path helper;
};

enum class PluginVerdict : std::uint8_t {
  Ok,           // loaded, registered (and, with check_create, create returned) and unloaded
  Rejected,     // the registry's validation refused it (the reason and code are the registry's)
  Crashed,      // the child (or its supervisor) died of a signal
  TimedOut,     // no verdict within the timeout; the child and everything it started were killed
  Exited,       // the child exited before finishing, or with a non-zero status after it
  Forged,       // the report claims success, but not with this run's nonce: the plugin wrote it
  Lingered,     // it finished but left processes running (they were killed)
  SpawnFailed,  // the verifier could not be started, or is not a verifier (no registry hook)
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
  // "create" (create, device_profile, destroy), "unload" (dlclose: its static destructors), or
  // "done" (every stage finished; a crash or exit after it is still a failure).
  std::string stage;
  int signal = 0;       // Crashed: the signal number
  int exit_status = 0;  // Exited: the exit status
  std::optional<PluginSummary> summary;  // set once registration succeeded
  // With check_create: "ok (<device name>)" or "failed: <message>" (a failed create is not a
  // failed verification: a GPU plugin on a machine without a driver must fail create cleanly).
  std::string create;
  std::string reason;       // one line: why the verdict is not Ok ("" when Ok)
  // Not Ok: the code a registry rejects the plugin with (Rejected: the loader's code).
  PluginRejection code = PluginRejection::verify_failed;
  std::size_t killed = 0;   // processes it left behind (or that were running at the timeout), killed
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
