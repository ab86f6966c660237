// Shared pieces of the `vyre` command line: global options, usage errors, the command table.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "vyre/registry.hpp"

namespace vyre::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// A malformed command line: printed with a pointer to --help, exit 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct GlobalOptions {
  std::vector<std::filesystem::path> plugin_dirs;  // --plugins DIR (repeatable)
  bool default_plugins = true;                     // --no-default-plugins clears it
  std::optional<std::filesystem::path> certs;      // --certs DIR (else VYRE_CERT_DIR)
  int verbosity = 0;                               // -v: info, -vv: debug
};

// The registry for this invocation (log on stderr with -v).
std::unique_ptr<Registry> make_registry(const GlobalOptions& options);

// Command arguments with simple "--name VALUE" / "--name=VALUE" parsing.
class Args {
 public:
  explicit Args(std::vector<std::string> args) : args_(std::move(args)) {}
  bool empty() const { return next_ >= args_.size(); }
  // The next argument; throws UsageError naming `what` when there is none.
  std::string take(std::string_view what);
  // If the next argument is option `name`, consume it (and its value) and return the value.
  std::optional<std::string> take_option(std::string_view name);
  bool take_flag(std::string_view name);
  const std::string& peek() const { return args_[next_]; }
  // Throw UsageError if anything is left.
  void finish(std::string_view command) const;

 private:
  std::vector<std::string> args_;
  std::size_t next_ = 0;
};

bool wants_help(const std::vector<std::string>& args);

struct Command {
  std::string_view name;
  std::string_view summary;
  std::string_view help;  // full usage text
  int (*run)(const GlobalOptions& global, Args& args);
};

const std::vector<Command>& commands();

int run_backends(const GlobalOptions& global, Args& args);
int run_ops(const GlobalOptions& global, Args& args);
int run_validate(const GlobalOptions& global, Args& args);
int run_run(const GlobalOptions& global, Args& args);
int run_convert(const GlobalOptions& global, Args& args);
int run_plugins(const GlobalOptions& global, Args& args);

extern const std::string_view kBackendsHelp;
extern const std::string_view kOpsHelp;
extern const std::string_view kValidateHelp;
extern const std::string_view kRunHelp;
extern const std::string_view kConvertHelp;
extern const std::string_view kPluginsHelp;

}  // namespace vyre::cli
