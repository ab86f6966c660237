// What every case gets: the options, the registry, backend instances (one per id, created on first
// use), the per-case defaults of warm-up and repetitions, and where vyre-bench itself lives.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "options.hpp"
#include "vyre/registry.hpp"

namespace vyre::bench {

class Context {
 public:
  Context(const Options& options, vyre::Registry& registry);

  const Options& options() const { return options_; }
  vyre::Registry& registry() const { return registry_; }
  // The instance of `id` this process uses (created once, reused by later cases).
  vyre::host::Backend backend(const std::string& id);
  // The backend of every case but R1 (--backend).
  vyre::host::Backend main_backend() { return backend(options_.backend); }

  std::uint32_t reps(std::uint32_t case_default) const { return options_.reps.value_or(case_default); }
  std::uint32_t warmup(std::uint32_t case_default) const { return options_.warmup.value_or(case_default); }
  // `full` scaled by --size-scale (at least `minimum`), rounded down to a multiple of `multiple`.
  std::uint64_t scaled_size(std::uint64_t full, std::uint64_t minimum, std::uint64_t multiple) const;
  // `full` scaled by --count-scale (at least 1).
  std::uint64_t scaled_count(std::uint64_t full) const;

  // A seed for case `id`'s random inputs, derived from --seed.
  std::uint64_t seed_for(std::string_view id) const;

  // This executable (for the P5 child) and the directory it is in.
  const std::filesystem::path& self() const { return self_; }

  // A progress line on stderr.
  void note(std::string_view message) const;

 private:
  const Options& options_;
  vyre::Registry& registry_;
  std::map<std::string, vyre::host::Backend, std::less<>> backends_;
  std::filesystem::path self_;
};

}  // namespace vyre::bench
