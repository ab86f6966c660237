// Errors of the standalone AOT launcher: one exception type whose message ends in "Fix: ...", and
// the process exit status it maps to. C++17, no dependencies (the launcher builds with nothing but
// a C++ compiler and the CUDA driver).
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace vyre_launch {

// Exit statuses of the launcher (docs/AOT.md).
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;   // a bad bundle, bad inputs, or a device error
constexpr int kExitUsage = 2;     // a malformed command line
constexpr int kExitNoDevice = 3;  // no CUDA driver or no visible device

class LaunchError : public std::runtime_error {
 public:
  LaunchError(const std::string& message, int exit_code) : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// "<problem>. Fix: <fix>." with the punctuation handled here.
std::string compose_message(const std::string& problem, const std::string& fix);

[[noreturn]] void fail(const std::string& problem, const std::string& fix);
[[noreturn]] void fail_usage(const std::string& problem, const std::string& fix);
[[noreturn]] void fail_no_device(const std::string& problem, const std::string& fix);

// Concatenate anything that streams (numbers, strings) into one string.
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

}  // namespace vyre_launch
