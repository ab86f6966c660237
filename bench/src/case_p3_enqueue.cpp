// P3: 10k resident dispatches of a tiny kernel (1024-element xor) enqueued back to back with
// dispatch_resident_async. Per sample: the enqueue loop's host time / count (the headline) and the
// time until every dispatch finished / count. On cuda, the driver's own floor for the same kernel
// and loop (driver_floor.hpp) is measured in the same run, right after: the goal is vyre's enqueue
// at most 0.3 us above it (issue 11 part 4).
#include <fmt/core.h>

#include <cstdlib>

#include "case_support.hpp"
#include "cases.hpp"
#include "clock.hpp"
#include "driver_floor.hpp"
#include "host_data.hpp"
#include "programs.hpp"
#include "resident_xor.hpp"

namespace vyre::bench {
namespace {

constexpr std::uint32_t kElements = 1024;
constexpr std::uint64_t kDispatches = 10'000;

struct LoopTimes {
  double enqueue_ns = 0;
  double total_ns = 0;
};

LoopTimes enqueue_loop(const vyre::host::Backend& backend, const vyre::host::Program& program,
                       const std::vector<vyre::host::Binding>& bindings, std::uint64_t count) {
  std::vector<vyre::host::PendingDispatch> pending;
  pending.reserve(count);
  const std::uint64_t start = now_ns();
  for (std::uint64_t k = 0; k < count; ++k) pending.push_back(backend.dispatch_resident_async(program, bindings));
  const std::uint64_t enqueued = now_ns();
  for (const auto& p : pending) (void)p.wait();
  const std::uint64_t finished = now_ns();
  const double per = 1.0 / static_cast<double>(count);
  return LoopTimes{static_cast<double>(enqueued - start) * per, static_cast<double>(finished - start) * per};
}

// The device the cuda backend runs on (the plugin's VYRE_CUDA_DEVICE_ORDINAL, else 0).
int cuda_ordinal() {
  const char* text = std::getenv("VYRE_CUDA_DEVICE_ORDINAL");
  return text != nullptr && *text != '\0' ? std::atoi(text) : 0;
}

void add_driver_floor(CaseResult& result, Context& context, std::uint64_t count) {
  if (context.options().backend != "cuda") return;
  const DriverFloor floor = measure_driver_launch_floor(cuda_ordinal(), count, context.warmup(1), context.reps(10));
  if (!floor.unavailable.empty()) {
    result.extra["driver_floor_unavailable"] = floor.unavailable;
    return;
  }
  add_time_extra(result, "driver_floor", floor.enqueue_ns, 1e-3, "us");
  add_time_extra(result, "driver_floor_total", floor.total_ns, 1e-3, "us");
}

}  // namespace

std::vector<CaseResult> run_p3_enqueue(Context& context) {
  vyre::host::Backend backend = context.main_backend();
  CaseResult result = start_case("P3", "resident enqueue, tiny kernel, 10k back to back", backend,
                                 "us/dispatch", "lower");
  const std::uint64_t count = context.scaled_count(kDispatches);
  const ResidentXor x = resident_xor(backend, kElements, context.seed_for("P3a"), context.seed_for("P3b"));
  const vyre::host::Program& program = x.program;
  const std::vector<vyre::host::Binding>& bindings = x.bindings;

  result.warmup = context.warmup(1);
  for (std::uint32_t w = 0; w < result.warmup; ++w) (void)enqueue_loop(backend, program, bindings, count);
  reset_metrics(backend);
  std::vector<double> enqueue_ns, total_ns;
  for (std::uint32_t r = 0; r < context.reps(10); ++r) {
    const LoopTimes t = enqueue_loop(backend, program, bindings, count);
    enqueue_ns.push_back(t.enqueue_ns);
    total_ns.push_back(t.total_ns);
  }
  result.metrics = metrics_of(backend);

  const std::size_t wrong = x.mismatches(backend);
  result.verified = wrong == 0;
  result.verification = checked(result.verified, fmt::format("out equals a ^ b after the loops ({} differ)", wrong));
  set_time_figure(result, enqueue_ns, 1e-3);
  add_time_extra(result, "total_per_dispatch", total_ns, 1e-3, "us");
  add_driver_floor(result, context, count);
  result.extra["dispatches_per_sample"] = count;
  result.extra["elements"] = kElements;
  return {result};
}

}  // namespace vyre::bench
