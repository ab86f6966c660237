#include "stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace vyre::bench {

double quantile(std::span<const double> sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("quantile of no samples");
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const std::size_t upper = std::min(lower + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

Summary summarize(std::span<const double> samples) {
  if (samples.empty()) throw std::invalid_argument("summary of no samples");
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  Summary s;
  s.count = sorted.size();
  s.median = quantile(sorted, 0.5);
  s.p10 = quantile(sorted, 0.1);
  s.p90 = quantile(sorted, 0.9);
  s.min = sorted.front();
  s.max = sorted.back();
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size());
  return s;
}

Summary rate_of(const Summary& seconds, double bytes) {
  auto rate = [&](double t) { return t > 0 ? bytes / t : 0.0; };
  Summary r;
  r.count = seconds.count;
  r.median = rate(seconds.median);
  r.p10 = rate(seconds.p90);
  r.p90 = rate(seconds.p10);
  r.min = rate(seconds.max);
  r.max = rate(seconds.min);
  r.mean = rate(seconds.mean);
  return r;
}

}  // namespace vyre::bench
