#include "runtime/telemetry.hpp"

namespace vyre::cuda {

std::vector<kit::Counter> Telemetry::snapshot() const {
  std::vector<kit::Counter> metrics;
#define VYRE_CUDA_SNAPSHOT(name, member) \
  metrics.push_back(kit::Counter{name, member.load(std::memory_order_relaxed)});
  VYRE_CUDA_COUNTERS(VYRE_CUDA_SNAPSHOT)
  VYRE_CUDA_GAUGES(VYRE_CUDA_SNAPSHOT)
#undef VYRE_CUDA_SNAPSHOT
  return metrics;
}

void Telemetry::reset() {
#define VYRE_CUDA_RESET(name, member) member.store(0, std::memory_order_relaxed);
  VYRE_CUDA_COUNTERS(VYRE_CUDA_RESET)
#undef VYRE_CUDA_RESET
}

}  // namespace vyre::cuda
