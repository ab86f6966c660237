// When a dispatch must stop early (for backends; backend_abi.h "Deadlines and cancellation"): its
// deadline (VYRE_CONFIG_HAS_TIME_LIMIT, counted from the entry of the call that started it) or a
// cancel request (pending_cancel). Backends check it wherever work can be stopped: reference_cpu
// between iterations, phases and workgroups and every kLoopTripsPerCheck loop trips; CUDA before
// each kernel launch it submits. Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>

#include "vyre/ir.hpp"

namespace vyre {

class StopCondition {
 public:
  using Clock = std::chrono::steady_clock;
  // For interpreters: loop trips between two checks. A check reads the clock (~20 ns) and a trip
  // costs at least a few ns per lane, so checking costs well under 1% and stops within microseconds.
  static constexpr std::uint32_t kLoopTripsPerCheck = 1024;

  StopCondition() = default;  // never stops
  // Deadline = `start` + config.time_limit_ns (when set); `cancelled` may be null.
  StopCondition(const DispatchConfig& config, Clock::time_point start, const std::atomic<bool>* cancelled);

  // Throws vyre::Error: VYRE_ERR_CANCELLED once cancelled, VYRE_ERR_TIMEOUT past the deadline.
  void check() const;
  // Whether check() can ever throw.
  bool active() const { return deadline_.has_value() || cancelled_ != nullptr; }

 private:
  std::optional<Clock::time_point> deadline_;
  std::uint64_t limit_ns_ = 0;
  const std::atomic<bool>* cancelled_ = nullptr;
};

}  // namespace vyre
