// Summary statistics of a case's samples. Quantiles interpolate linearly between the closest ranks
// (numpy's default), the same definition as bench/baselines/common.py.
#pragma once

#include <cstddef>
#include <span>

namespace vyre::bench {

struct Summary {
  std::size_t count = 0;
  double median = 0;
  double p10 = 0;
  double p90 = 0;
  double min = 0;
  double max = 0;
  double mean = 0;
};

// Throws std::invalid_argument for no samples.
Summary summarize(std::span<const double> samples);

// The quantile q in [0, 1] of sorted samples.
double quantile(std::span<const double> sorted, double q);

// `bytes` moved per sample over the time summary `seconds`: the median rate, and the rates at the
// slow (p10: the p90 time) and fast (p90: the p10 time) ends.
Summary rate_of(const Summary& seconds, double bytes);

}  // namespace vyre::bench
