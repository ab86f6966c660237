#include "runtime/fault/spec.hpp"

#include <charconv>
#include <optional>

#include <fmt/format.h>

#include "vyre/error.hpp"

namespace vyre::cuda::fault {
namespace {

constexpr drv::CUresult kUnknownError = 999;  // CUDA_ERROR_UNKNOWN

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::optional<Hook> hook_named(std::string_view name) {
  for (std::size_t i = 0; i < kHookCount; ++i) {
    if (kHookNames[i] == name) return static_cast<Hook>(i);
  }
  // The driver's versioned symbol names the same entry point (cuMemAlloc_v2).
  for (std::string_view suffix : {"_v2", "_v3"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) return hook_named(name.substr(0, name.size() - suffix.size()));
  }
  return std::nullopt;
}

template <class Int>
std::optional<Int> number(std::string_view text) {
  Int value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

[[noreturn]] void bad_spec(std::string_view text, std::string_view why) {
  fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("{}='{}': {}", kFaultEnv, text, why),
       fmt::format("write {}=<function>:<n>[+][:<CUresult>][,...], e.g. cuMemAlloc:3; hookable "
                   "functions: {}",
                   kFaultEnv, hookable_list()));
}

Rule parse_rule(std::string_view whole, std::string_view text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) bad_spec(whole, fmt::format("rule '{}' has no ':<n>'", text));
  const std::string_view name = trim(text.substr(0, colon));
  const std::optional<Hook> hook = hook_named(name);
  if (!hook) bad_spec(whole, fmt::format("'{}' is not a hookable driver function", name));
  Rule rule;
  rule.hook = *hook;
  rule.result = default_fault_result(*hook);
  std::string_view rest = text.substr(colon + 1);
  const std::size_t second = rest.find(':');
  std::string_view count = trim(rest.substr(0, second));
  if (second != std::string_view::npos) {
    const auto result = number<drv::CUresult>(trim(rest.substr(second + 1)));
    if (!result || *result <= 0) bad_spec(whole, fmt::format("rule '{}' names no CUresult above 0", text));
    rule.result = *result;
  }
  if (count.ends_with('+')) {
    rule.and_after = true;
    count.remove_suffix(1);
  }
  const auto nth = number<std::uint64_t>(count);
  if (!nth || *nth == 0) bad_spec(whole, fmt::format("rule '{}' needs a call number of 1 or more", text));
  rule.nth = *nth;
  return rule;
}

}  // namespace

drv::CUresult default_fault_result(Hook hook) {
  return hook == Hook::cuMemAlloc || hook == Hook::cuMemHostAlloc ? drv::CUDA_ERROR_OUT_OF_MEMORY : kUnknownError;
}

std::string hookable_list() {
  std::string list;
  for (std::string_view name : kHookNames) {
    if (!list.empty()) list += ", ";
    list += name;
  }
  return list;
}

std::vector<Rule> parse_fault_spec(std::string_view text) {
  const std::string_view whole = trim(text);
  if (whole == "list" || whole == "help") bad_spec(whole, "listing the hookable functions");
  std::vector<Rule> rules;
  std::string_view rest = whole;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view rule = trim(rest.substr(0, comma));
    if (!rule.empty()) rules.push_back(parse_rule(whole, rule));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return rules;
}

}  // namespace vyre::cuda::fault
