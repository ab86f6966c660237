// Command-line pieces shared by the vyre tools (vyre, vyre-aot): exit statuses, usage errors,
// "--name VALUE" / "--name=VALUE" parsing, and the registry that the plugin options describe.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "vyre/registry.hpp"

namespace vyre::tool {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// A malformed command line: the tool prints it with a pointer to --help and exits kExitUsage.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether -h or --help stands anywhere in `args`.
bool wants_help(const std::vector<std::string>& args);

// Arguments consumed front to back.
class Args {
 public:
  explicit Args(std::vector<std::string> args) : args_(std::move(args)) {}
  bool empty() const { return next_ >= args_.size(); }
  const std::string& peek() const { return args_[next_]; }
  // The next argument; throws UsageError naming `what` when there is none.
  std::string take(std::string_view what);
  // If the next argument is option `name` ("--name VALUE" or "--name=VALUE"), consume it and
  // return its value; throws UsageError when "--name" ends the line.
  std::optional<std::string> take_option(std::string_view name);
  // If the next argument is exactly `name`, consume it.
  bool take_flag(std::string_view name);
  // Throw UsageError if anything is left; `command` names the command line in the message
  // ("vyre ops").
  void finish(std::string_view command) const;

 private:
  std::vector<std::string> args_;
  std::size_t next_ = 0;
};

// The options that set up a tool's registry.
struct RegistryFlags {
  std::vector<std::filesystem::path> plugin_dirs;  // --plugins DIR (repeatable)
  bool default_plugins = true;                     // --no-default-plugins clears it
  std::optional<std::filesystem::path> certs;      // --certs DIR (else VYRE_CERT_DIR)
  std::optional<std::filesystem::path> trusted_keys;  // --trusted-keys DIR (else VYRE_TRUSTED_KEYS)
  std::vector<std::string> replace_backends;       // --replace-backend ID (repeatable)
  int verbosity = 0;                               // -v: info, -vv: debug
};

// The registry for this invocation; it logs on stderr (errors only without -v).
std::unique_ptr<Registry> make_registry(const RegistryFlags& flags);

}  // namespace vyre::tool
