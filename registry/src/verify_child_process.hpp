// Starting the verifier supervisor and watching it until it finishes or its time runs out.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

namespace vyre::registry_detail {

struct ChildOutcome {
  std::string spawn_error;  // set when nothing could be started (then nothing else is)
  std::string nonce;        // what the verifier's "done" line must carry
  std::string report;       // everything the verifier child wrote on the report pipe
  std::string supervisor;   // everything the supervisor wrote on the control socket
  std::string output;       // the tail of their stdout and stderr
  bool timed_out = false;   // the time ran out and the supervisor was told to stop
  int signal = 0;           // the signal that ended the supervisor, if one did
  int exit_status = 0;      // the supervisor's exit status otherwise
};

// Run the verifier for `plugin` in `mode` (verify_protocol.hpp): `helper` (empty: this program,
// with this process's own argv) in its own process group, with the request on a control socket,
// the report on a pipe, stdout and stderr captured and stdin from /dev/null; the environment is
// this process's, unchanged. At `timeout` the supervisor is told to stop (it kills the whole
// tree); if it does not, its process group is killed. Never throws.
ChildOutcome run_verifier(const std::filesystem::path& helper, const std::filesystem::path& plugin,
                          const std::string& mode, std::chrono::milliseconds timeout) noexcept;

}  // namespace vyre::registry_detail
