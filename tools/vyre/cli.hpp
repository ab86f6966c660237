// Shared pieces of the `vyre` command line: global options, usage errors, the command table.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "command_line.hpp"

namespace vyre::cli {

// The command-line pieces every vyre tool shares (tools/common), under the names the commands use.
using tool::Args;
using tool::kExitFailure;
using tool::kExitOk;
using tool::kExitUsage;
using tool::make_registry;
using tool::UsageError;
using tool::wants_help;

// The global options: where plugins come from, the certificates, verbosity.
using GlobalOptions = tool::RegistryFlags;

struct Command {
  std::string_view name;
  std::string_view summary;
  std::string_view help;  // full usage text
  int (*run)(const GlobalOptions& global, Args& args);
};

const std::vector<Command>& commands();

// Text a plugin provided (ids, versions, device names, reasons) or a file name, as printed:
// control characters escaped, at most 4 KiB (vyre/printable.hpp).
std::string shown(std::string_view text);

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
