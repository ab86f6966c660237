// The vyre-conform program: discover backends, certify each against the reference (or lower it
// offline), print failures and the summary, write certificates.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "vyre/conform/options.hpp"

namespace vyre::conform {

// Exit status: 0 when nothing failed, 1 on any failure, 2 on a usage error.
int run(const Options& options, std::ostream& out, std::ostream& err);

// Parse `args` (without the program name) and run; usage errors print the usage and return 2.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace vyre::conform
