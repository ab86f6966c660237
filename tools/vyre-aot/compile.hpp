// vyre-aot compile: the whole command.
#pragma once

#include "options.hpp"

namespace vyre::aot_tool {

// Load and size the program, emit the bundle through the backend plugin's aot_emit (found through
// the registry), add the inputs, check the bundle as the launcher will, and write it. Prints a
// summary on stdout. Throws vyre::Error.
void run_compile(const CompileOptions& options);

}  // namespace vyre::aot_tool
