// The command table, and how plugin-provided text is printed.
#include "cli.hpp"

#include "vyre/printable.hpp"

namespace vyre::cli {

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

std::string shown(std::string_view text) { return printable(text, 4096); }

}  // namespace vyre::cli
