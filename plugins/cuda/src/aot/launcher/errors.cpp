#include "errors.hpp"

namespace vyre_launch {
namespace {

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '.' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

std::string compose_message(const std::string& problem, const std::string& fix) {
  // A NUL byte from hostile input would cut what() short before "Fix:": spell it as \0.
  std::string message = trimmed(problem) + ". Fix: " + trimmed(fix) + ".";
  for (std::size_t at = message.find('\0'); at != std::string::npos; at = message.find('\0', at + 2))
    message.replace(at, 1, "\\0");
  return message;
}

void fail(const std::string& problem, const std::string& fix) {
  throw LaunchError(compose_message(problem, fix), kExitFailure);
}

void fail_usage(const std::string& problem, const std::string& fix) {
  throw LaunchError(compose_message(problem, fix), kExitUsage);
}

void fail_no_device(const std::string& problem, const std::string& fix) {
  throw LaunchError(compose_message(problem, fix), kExitNoDevice);
}

}  // namespace vyre_launch
