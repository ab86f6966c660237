// vyre plugins verify: load every plugin in a child process and report the ones that crash, hang
// or exit there, without risking this process.
#include <fmt/core.h>

#include <chrono>
#include <cmath>
#include <system_error>

#include "cli.hpp"
#include "vyre/plugin_verify.hpp"

namespace vyre::cli {

const std::string_view kPluginsHelp = R"(usage: vyre [global options] plugins verify [PATH...] [--timeout S] [--create]

Loads each plugin in a child process of its own, exactly as the registry would: dlopen (with the
library's static constructors), vyre_backend_register and the registry's checks of what it
registered; with --create also create, device_profile and destroy of one default instance; then
dlclose (its static destructors). The child is this program re-run with the same arguments and
environment (nothing marks it as a verification) under a supervisor that kills everything the
plugin started when it ends or times out, including processes that called setsid(). A plugin that
crashes (a signal such as SIGSEGV or SIGABRT), hangs (no answer within the timeout), exits, kills
its supervisor, leaves processes behind ("lingered"), or writes a report it did not earn
("forged": a success report must carry the run's nonce and the child must exit cleanly) is
reported by file with the signal, timeout or exit status and the stage it happened in; this
process is never at risk. Plugins that pass print their registration summary.

PATH is a plugin file or a directory (its libvyre_*.so files). Without PATH: every plugin file
the registry would load (--plugins DIR, VYRE_PLUGIN_PATH, the default directories).

options:
  --timeout S   seconds each plugin may take for all its stages (default 10; fractions allowed)
  --create      also create and destroy one instance (a create that fails with an error is
                reported but is not a failure: a GPU plugin without a driver does that)

The registry does the same check before loading anything with VYRE_VERIFY_PLUGINS=1, and with
VYRE_VERIFY_PLUGINS=create also the create step.
Exit status: 0 every plugin passed, 1 a plugin failed (or none was found), 2 usage error.
)";

namespace {

namespace fs = std::filesystem;

struct VerifyOptions {
  std::vector<fs::path> paths;
  PluginVerifyOptions verify;
};

std::chrono::milliseconds parse_timeout(const std::string& text) {
  double seconds = 0;
  std::size_t used = 0;
  try {
    seconds = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !std::isfinite(seconds) || seconds <= 0 || seconds > 3600)
    throw UsageError(fmt::format("--timeout needs seconds in (0, 3600], got '{}'", text));
  return std::chrono::milliseconds(std::max<long long>(1, std::llround(seconds * 1000)));
}

VerifyOptions parse_verify(Args& args) {
  VerifyOptions options;
  while (!args.empty()) {
    if (auto timeout = args.take_option("--timeout")) {
      options.verify.timeout = parse_timeout(*timeout);
    } else if (args.take_flag("--create")) {
      options.verify.check_create = true;
    } else if (args.peek().starts_with("-")) {
      throw UsageError(fmt::format("unknown option '{}' for `vyre plugins verify`", args.peek()));
    } else {
      options.paths.emplace_back(args.take("PATH"));
    }
  }
  return options;
}

std::vector<fs::path> files_of(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    if (!fs::exists(path, ec))
      fail(VYRE_ERR_NOT_FOUND, fmt::format("{} does not exist", path.string()),
           "pass a plugin file or a directory of libvyre_*.so files");
    return {path};
  }
  RegistryOptions options;
  options.plugin_dirs = {path};
  options.use_environment = false;
  options.use_default_dirs = false;
  return discover_plugin_files(options);
}

std::vector<fs::path> plugin_files(const GlobalOptions& global, const std::vector<fs::path>& paths) {
  if (!paths.empty()) {
    std::vector<fs::path> files;
    for (const fs::path& p : paths)
      for (fs::path& f : files_of(p)) files.push_back(std::move(f));
    return files;
  }
  RegistryOptions options;
  options.plugin_dirs = global.plugin_dirs;
  options.use_default_dirs = global.default_plugins;
  return discover_plugin_files(options);
}

std::string capability_list(std::uint64_t capabilities) {
  std::string out;
  for (std::string_view name : capability_names(capabilities))
    out += (out.empty() ? "" : ", ") + std::string(name);
  return out.empty() ? "none" : out;
}

void print_verdict(const PluginVerification& v) {
  fmt::print("{:<9}{}\n", plugin_verdict_name(v.verdict), shown(v.path.string()));
  if (const auto& s = v.summary) {
    fmt::print("         registered: {} {}, rank {}, ABI {}.{}, {} ops\n", shown(s->id), shown(s->version), s->rank,
               s->abi_major, s->abi_minor, s->op_count);
    fmt::print("         capabilities: {}\n", capability_list(s->capabilities));
  }
  if (!v.create.empty()) fmt::print("         create: {}\n", shown(v.create));
  if (v.ok()) return;
  fmt::print("         reason: {}\n", shown(v.reason));
  fmt::print("         code: {}\n", plugin_rejection_name(v.code));
}

}  // namespace

int run_plugins(const GlobalOptions& global, Args& args) {
  const std::string sub = args.take("subcommand (verify)");
  if (sub != "verify") throw UsageError(fmt::format("unknown subcommand '{}' (plugins: verify)", sub));
  const VerifyOptions options = parse_verify(args);
  const std::vector<fs::path> files = plugin_files(global, options.paths);
  if (files.empty()) {
    fmt::print(stderr,
               "vyre: no plugin files (libvyre_*.so) found. Fix: pass a plugin file or directory, "
               "or use --plugins DIR\n");
    return kExitFailure;
  }
  fmt::print("verifying {} plugin file{} in child processes (timeout {:g} s each{})\n", files.size(),
             files.size() == 1 ? "" : "s", static_cast<double>(options.verify.timeout.count()) / 1000,
             options.verify.check_create ? ", with create" : "");
  std::size_t passed = 0;
  for (const PluginVerification& v : verify_plugins(files, options.verify)) {
    print_verdict(v);
    passed += v.ok() ? 1 : 0;
  }
  fmt::print("{} passed, {} failed\n", passed, files.size() - passed);
  return passed == files.size() ? kExitOk : kExitFailure;
}

}  // namespace vyre::cli
