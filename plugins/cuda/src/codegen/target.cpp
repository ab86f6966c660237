// Targets: which compute capabilities the emitter lowers for, and the lowest PTX ISA version that
// supports each (the module's `.version`). Every instruction the emitter uses exists from PTX 6.0 /
// sm_70 on (shfl.sync, vote.sync, scoped atomics, fence.acq_rel, ld.acquire); redux.sync and
// cvt.rn.bf16.f32 are used only where the target has them (sm_80+).
#include <charconv>
#include <string>

#include <fmt/format.h>

#include "codegen/target_info.hpp"
#include "lowering.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda {

namespace {

struct TargetIsa {
  std::uint32_t sm;
  const char* ptx_isa;  // the PTX ISA version that introduced the target
};

// From the PTX ISA's "Target ISA notes" of `.target`.
constexpr TargetIsa kTargets[] = {
    {70, "6.0"},  {72, "6.1"},  {75, "6.3"},  {80, "7.0"},  {86, "7.1"},  {87, "7.4"},
    {89, "7.8"},  {90, "7.8"},  {100, "8.6"}, {101, "8.6"}, {103, "8.8"}, {110, "9.0"},
    {120, "8.7"}, {121, "8.8"},
};

const TargetIsa* find_target(std::uint32_t sm) {
  for (const auto& t : kTargets)
    if (t.sm == sm) return &t;
  return nullptr;
}

std::string known_targets() {
  std::string list;
  for (const auto& t : kTargets) {
    if (!list.empty()) list += ", ";
    list += fmt::format("sm_{}", t.sm);
  }
  return list;
}

[[noreturn]] void unknown_target(std::string_view text) {
  fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("'{}' is not a CUDA target the PTX emitter knows", text),
       fmt::format("name one of {} (\"sm_90\" or \"90\")", known_targets()));
}

}  // namespace

std::string Target::name() const { return fmt::format("sm_{}", sm); }

std::string Target::ptx_isa_version() const {
  const TargetIsa* t = find_target(sm);
  if (t == nullptr) unknown_target(name());
  return t->ptx_isa;
}

Target parse_target(std::string_view text) {
  std::string_view digits = text;
  if (digits.substr(0, 3) == "sm_") digits.remove_prefix(3);
  std::uint32_t sm = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), sm);
  if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size())
    unknown_target(text);
  if (find_target(sm) == nullptr) unknown_target(text);
  return Target{sm};
}

namespace codegen {

bool has_redux_sync(const Target& target) { return target.sm >= 80; }
bool has_bf16_convert(const Target& target) { return target.sm >= 80; }

}  // namespace codegen

}  // namespace vyre::cuda
