#include "context.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

namespace vyre::bench {

Context::Context(const Options& options, vyre::Registry& registry)
    : options_(options), registry_(registry), self_(std::filesystem::read_symlink("/proc/self/exe")) {}

vyre::host::Backend Context::backend(const std::string& id) {
  auto found = backends_.find(id);
  if (found != backends_.end()) return found->second;
  vyre::host::Backend created = registry_.create(id);
  backends_.emplace(id, created);
  return created;
}

std::uint64_t Context::scaled_size(std::uint64_t full, std::uint64_t minimum, std::uint64_t multiple) const {
  auto n = static_cast<std::uint64_t>(std::llround(static_cast<double>(full) * options_.size_scale));
  n = std::max(n, minimum);
  return std::max(multiple, n / multiple * multiple);
}

std::uint64_t Context::scaled_count(std::uint64_t full) const {
  const auto n = static_cast<std::uint64_t>(std::llround(static_cast<double>(full) * options_.count_scale));
  return std::max<std::uint64_t>(1, n);
}

std::uint64_t Context::seed_for(std::string_view id) const {
  return options_.seed ^ (std::hash<std::string_view>{}(id) * 0x9E37'79B9'7F4A'7C15ull);
}

void Context::note(std::string_view message) const { fmt::print(stderr, "vyre-bench: {}\n", message); }

}  // namespace vyre::bench
