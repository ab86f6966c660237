// P9's C++ side: one synchronous resident dispatch of a 1024-element u32 xor on three resident
// buffers (Backend::dispatch_resident, which returns when the work finished), host wall per call.
// bench/python_cases.py times the same dispatch from Python on torch tensors bound through DLPack
// and compares with this figure (result id "P9-cpp").
#include <fmt/core.h>

#include "case_support.hpp"
#include "cases.hpp"
#include "clock.hpp"
#include "resident_xor.hpp"

namespace vyre::bench {
namespace {

constexpr std::uint32_t kElements = 1024;

}  // namespace

std::vector<CaseResult> run_p9_resident_dispatch(Context& context) {
  vyre::host::Backend backend = context.main_backend();
  CaseResult result = start_case("P9-cpp", "resident dispatch, 1024-u32 xor, synchronous", backend, "us", "lower");
  const ResidentXor x = resident_xor(backend, kElements, context.seed_for("P9a"), context.seed_for("P9b"));
  backend.dispatch_resident(x.program, x.bindings);
  const std::size_t wrong = x.mismatches(backend);
  result.verified = wrong == 0;
  result.verification = checked(result.verified, fmt::format("out equals a ^ b ({} differ)", wrong));

  result.warmup = context.warmup(100);
  reset_metrics(backend);
  const auto samples = time_calls(result.warmup, context.reps(2000), [&] { backend.dispatch_resident(x.program, x.bindings); });
  result.metrics = metrics_of(backend);
  set_time_figure(result, samples, 1e-3);
  result.extra["elements"] = kElements;
  return {result};
}

}  // namespace vyre::bench
