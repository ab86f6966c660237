// vyre: the command-line front end of the registry and the SDK.
#include <fmt/core.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli.hpp"
#include "vyre/error.hpp"

namespace {

using vyre::cli::GlobalOptions;
using vyre::cli::UsageError;

constexpr std::string_view kGlobalHelp = R"(usage: vyre [global options] <command> [arguments]

commands:
{}
global options (anywhere on the line):
  --plugins DIR          also load plugins from DIR (repeatable; searched first)
  --no-default-plugins   skip <prefix>/lib/vyre/plugins and the build tree's plugins
                         (VYRE_PLUGIN_PATH and --plugins still apply)
  --certs DIR            route only by the conformance certificates in DIR (vyre-conform's
                         output) that a trusted key signed; a backend without an accepted
                         certificate routes nothing (the pinned reference oracle excepted)
  --trusted-keys DIR     the public keys (*.pem) whose certificate signatures are trusted
                         (default $XDG_CONFIG_HOME/vyre/trusted-keys)
  --replace-backend ID   let a --plugins/VYRE_PLUGIN_PATH plugin replace vyre's own backend ID
                         (repeatable; logged); otherwise such a duplicate is rejected
  -v, --verbose          log what the registry does (-vv: debug detail)
  -h, --help             this text; `vyre <command> --help` for a command

environment:
  VYRE_PLUGIN_PATH       colon-separated plugin directories
  VYRE_BACKEND           force one backend id (an error if it cannot run the program)
  VYRE_CERT_DIR          as --certs DIR
  VYRE_TRUSTED_KEYS      as --trusted-keys DIR
  VYRE_REPLACE_BACKENDS  comma-separated ids, as --replace-backend
  VYRE_VERIFY_PLUGINS    1: verify every plugin in a child process before loading it;
                         create: also create an instance there (see `vyre plugins verify`)

exit status: 0 success, 1 failure, 2 usage error
)";

std::string command_list() {
  std::string out;
  for (const auto& c : vyre::cli::commands()) out += fmt::format("  {:<10} {}\n", c.name, c.summary);
  return out;
}

void print_global_help(std::FILE* to) { fmt::print(to, kGlobalHelp, command_list()); }

// The value of option `name` at args[i] ("--name VALUE", advancing i, or "--name=VALUE").
std::string option_value(const std::vector<std::string>& args, std::size_t& i, std::string_view name) {
  if (args[i].size() > name.size()) return args[i].substr(name.size() + 1);
  if (i + 1 >= args.size()) throw UsageError(fmt::format("{} needs a value", name));
  return args[++i];
}

// Remove the global options from `args` (they may appear anywhere).
GlobalOptions take_global_options(std::vector<std::string>& args) {
  GlobalOptions options;
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--plugins") {
      if (i + 1 >= args.size()) throw UsageError("--plugins needs a directory");
      options.plugin_dirs.emplace_back(args[++i]);
    } else if (a.starts_with("--plugins=")) {
      options.plugin_dirs.emplace_back(a.substr(10));
    } else if (a == "--certs") {
      if (i + 1 >= args.size()) throw UsageError("--certs needs a directory");
      options.certs = args[++i];
    } else if (a.starts_with("--certs=")) {
      options.certs = a.substr(8);
    } else if (a == "--trusted-keys" || a.starts_with("--trusted-keys=")) {
      options.trusted_keys = option_value(args, i, "--trusted-keys");
    } else if (a == "--replace-backend" || a.starts_with("--replace-backend=")) {
      options.replace_backends.push_back(option_value(args, i, "--replace-backend"));
    } else if (a == "--no-default-plugins") {
      options.default_plugins = false;
    } else if (a == "-v" || a == "--verbose") {
      ++options.verbosity;
    } else if (a == "-vv") {
      options.verbosity += 2;
    } else {
      rest.push_back(a);
    }
  }
  args = std::move(rest);
  return options;
}

const vyre::cli::Command* find_command(std::string_view name) {
  for (const auto& c : vyre::cli::commands())
    if (c.name == name) return &c;
  return nullptr;
}

int run(std::vector<std::string> args) {
  const GlobalOptions global = take_global_options(args);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    if (args.size() >= 2 && args[0] == "help")
      if (const auto* c = find_command(args[1])) {
        fmt::print("{}", c->help);
        return vyre::cli::kExitOk;
      }
    print_global_help(args.empty() ? stderr : stdout);
    return args.empty() ? vyre::cli::kExitUsage : vyre::cli::kExitOk;
  }
  const vyre::cli::Command* command = find_command(args[0]);
  if (command == nullptr) {
    std::string names;
    for (const auto& c : vyre::cli::commands()) names += (names.empty() ? "" : ", ") + std::string(c.name);
    throw UsageError(fmt::format("unknown command '{}' (commands: {})", args[0], names));
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (vyre::cli::wants_help(rest)) {
    fmt::print("{}", command->help);
    return vyre::cli::kExitOk;
  }
  vyre::cli::Args command_args(std::move(rest));
  return command->run(global, command_args);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const UsageError& e) {
    fmt::print(stderr, "vyre: usage error: {}\nRun `vyre --help` (or `vyre <command> --help`).\n",
               e.what());
    return vyre::cli::kExitUsage;
  } catch (...) {  // every other failure with its stable code and a Fix (bad_alloc, iostream, ...)
    const vyre::Error e = vyre::current_exception_as_error();
    fmt::print(stderr, "vyre: error ({}): {}\n", vyre::status_name(e.code()), e.what());
    return vyre::cli::kExitFailure;
  }
}
