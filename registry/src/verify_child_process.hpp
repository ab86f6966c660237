// Starting a plugin-verifier child and watching it until it finishes or its time runs out.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

namespace vyre::registry_detail {

struct ChildOutcome {
  std::string spawn_error;  // set when the child could not be started (then nothing else is)
  std::string report;       // everything written to the report pipe
  std::string output;       // the tail of its stdout and stderr
  bool timed_out = false;   // killed (with its process group) when the time ran out
  int signal = 0;           // the signal that ended it, if one did
  int exit_status = 0;      // its exit status otherwise
};

// Run `helper <marker> <plugin> <mode>` in its own process group with the report pipe on
// kVerifyReportFd, stdout and stderr captured, stdin from /dev/null and VYRE_PLUGIN_VERIFY_CHILD=1.
// Waits at most `timeout`; on expiry kills the process group. Never throws.
ChildOutcome run_verifier_child(const std::filesystem::path& helper, const std::filesystem::path& plugin,
                                const std::string& mode, std::chrono::milliseconds timeout) noexcept;

}  // namespace vyre::registry_detail
