#include "command_line.hpp"

#include <fmt/core.h>

#include "vyre/registry_log.hpp"

namespace vyre::tool {

bool wants_help(const std::vector<std::string>& args) {
  for (const std::string& a : args)
    if (a == "-h" || a == "--help") return true;
  return false;
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
  throw UsageError(fmt::format("unexpected argument '{}' for `{}`", args_[next_], command));
}

std::unique_ptr<Registry> make_registry(const RegistryFlags& flags) {
  RegistryOptions options;
  options.plugin_dirs = flags.plugin_dirs;
  options.use_default_dirs = flags.default_plugins;
  options.certificate_dir = flags.certs;
  options.trusted_keys_dir = flags.trusted_keys;
  options.replace_backends = flags.replace_backends;
  const int level = flags.verbosity > 1 ? VYRE_LOG_DEBUG : flags.verbosity > 0 ? VYRE_LOG_INFO : VYRE_LOG_ERROR;
  options.log = stderr_log_sink(level);
  return std::make_unique<Registry>(options);
}

}  // namespace vyre::tool
