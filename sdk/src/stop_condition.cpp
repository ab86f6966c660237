#include "vyre/stop_condition.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "vyre/error.hpp"

namespace vyre {

StopCondition::StopCondition(const DispatchConfig& config, Clock::time_point start,
                             const std::atomic<bool>* cancelled)
    : cancelled_(cancelled) {
  if (!config.time_limit_ns) return;
  limit_ns_ = *config.time_limit_ns;
  // A limit past the clock's range ends at the clock's end (UINT64_MAX ns is 584 years).
  const auto max_wait = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::time_point::max() - start);
  const auto limit = std::min<std::uint64_t>(limit_ns_, static_cast<std::uint64_t>(max_wait.count()));
  deadline_ = start + std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(limit));
}

void StopCondition::check() const {
  if (cancelled_ != nullptr && cancelled_->load(std::memory_order_relaxed))
    fail(VYRE_ERR_CANCELLED, "the dispatch was cancelled before it finished; no host output was written",
         "dispatch again if you still need the result (resident buffers it wrote may hold partial results)");
  if (!deadline_ || Clock::now() < *deadline_) return;
  fail(VYRE_ERR_TIMEOUT,
       fmt::format("the dispatch did not finish within its time limit of {} ns and was stopped; no host "
                   "output was written (resident buffers it wrote may hold partial results)",
                   limit_ns_),
       "raise the time limit, or make the program do less work (fewer loop trips, iterations or elements)");
}

}  // namespace vyre
