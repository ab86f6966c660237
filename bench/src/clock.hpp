// Host wall clock for timings that the backend's events do not cover.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

namespace vyre::bench {

inline std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now().time_since_epoch()).count());
}

// The host wall time of each of `reps` calls, in ns, after `warmup` untimed ones.
template <class Call>
std::vector<double> time_calls(std::uint32_t warmup, std::uint32_t reps, const Call& call) {
  for (std::uint32_t w = 0; w < warmup; ++w) call();
  std::vector<double> samples;
  samples.reserve(reps);
  for (std::uint32_t r = 0; r < reps; ++r) {
    const std::uint64_t start = now_ns();
    call();
    samples.push_back(static_cast<double>(now_ns() - start));
  }
  return samples;
}

}  // namespace vyre::bench
