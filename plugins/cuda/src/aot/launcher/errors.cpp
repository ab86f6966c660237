#include "errors.hpp"

namespace vyre_launch {
namespace {

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '.' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

std::string compose_message(const std::string& problem, const std::string& fix) {
  return trimmed(problem) + ". Fix: " + trimmed(fix) + ".";
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
