// Running a child process (vyre-conform for P6, vyre-bench itself for P5) with extra environment
// variables, its stdout captured (and its stderr too when asked), a wall-clock time and a limit.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace vyre::bench {

struct ProcessResult {
  int exit_code = -1;     // the exit status; -1 when killed by a signal
  int signal = 0;         // the signal that ended it, or 0
  bool timed_out = false; // killed at the time limit
  double wall_s = 0;      // from spawn to exit
  std::string output;     // stdout (and stderr with merge_stderr)
};

struct ProcessSpec {
  std::vector<std::string> argv;                   // argv[0] is the executable's path
  std::map<std::string, std::string> environment;  // set (or replaced) in the child
  bool merge_stderr = false;                       // else the child's stderr is this process's
  std::uint32_t timeout_s = 0;                     // 0: no limit
};

// Throws std::runtime_error when the process cannot be started.
ProcessResult run_process(const ProcessSpec& spec);

}  // namespace vyre::bench
