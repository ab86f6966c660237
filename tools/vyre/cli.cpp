// Argument helpers, the registry for a command, and the command table.
#include "cli.hpp"

#include <fmt/core.h>

namespace vyre::cli {

std::unique_ptr<Registry> make_registry(const GlobalOptions& options) {
  RegistryOptions registry_options;
  registry_options.plugin_dirs = options.plugin_dirs;
  registry_options.use_default_dirs = options.default_plugins;
  registry_options.certificate_dir = options.certs;
  if (options.verbosity > 0)
    registry_options.log = stderr_log_sink(options.verbosity > 1 ? VYRE_LOG_DEBUG : VYRE_LOG_INFO);
  else
    registry_options.log = stderr_log_sink(VYRE_LOG_ERROR);
  return std::make_unique<Registry>(registry_options);
}

std::string Args::take(std::string_view what) {
  if (empty()) throw UsageError(fmt::format("missing {}", what));
  return args_[next_++];
}

std::optional<std::string> Args::take_option(std::string_view name) {
  if (empty()) return std::nullopt;
  const std::string& a = args_[next_];
  if (a == name) {
    if (next_ + 1 >= args_.size()) throw UsageError(fmt::format("{} needs a value", name));
    next_ += 2;
    return args_[next_ - 1];
  }
  if (a.size() > name.size() && a.starts_with(name) && a[name.size()] == '=') {
    ++next_;
    return a.substr(name.size() + 1);
  }
  return std::nullopt;
}

bool Args::take_flag(std::string_view name) {
  if (empty() || args_[next_] != name) return false;
  ++next_;
  return true;
}

void Args::finish(std::string_view command) const {
  if (empty()) return;
  throw UsageError(fmt::format("unexpected argument '{}' for `vyre {}`", args_[next_], command));
}

bool wants_help(const std::vector<std::string>& args) {
  for (const std::string& a : args)
    if (a == "-h" || a == "--help") return true;
  return false;
}

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"backends", "list loaded and rejected plugins, and whether each backend runs here",
       kBackendsHelp, &run_backends},
      {"ops", "list the op catalog, or the ops one backend supports", kOpsHelp, &run_ops},
      {"validate", "check a program file and print every problem", kValidateHelp, &run_validate},
      {"run", "run a program on a backend and print or save its outputs", kRunHelp, &run_run},
      {"convert", "convert a program between JSON and wire bytes", kConvertHelp, &run_convert},
      {"plugins", "load plugins in child processes; report crashes and hangs",
       kPluginsHelp, &run_plugins},
  };
  return table;
}

}  // namespace vyre::cli
