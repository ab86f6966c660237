// P2: a host dispatch round trip (upload two 1024-u32 inputs, xor, download), host wall clock per
// call. The headline is Backend::dispatch; the compiled pipeline of the same program (a kernel
// graph replayed per call on mapped staging) is reported beside it as `pipeline_round_trip`.
#include <fmt/core.h>

#include "case_support.hpp"
#include "cases.hpp"
#include "clock.hpp"
#include "host_data.hpp"
#include "programs.hpp"

namespace vyre::bench {
namespace {

constexpr std::uint32_t kElements = 1024;

}  // namespace

std::vector<CaseResult> run_p2_round_trip(Context& context) {
  vyre::host::Backend backend = context.main_backend();
  CaseResult result = start_case("P2", "host round trip, 2x1024 u32 xor", backend, "us", "lower");
  const auto x = random_words(kElements, context.seed_for("P2x"));
  const auto y = random_words(kElements, context.seed_for("P2y"));
  const vyre::host::Program program = backend.compile(xor_program(kElements));
  const std::vector<vyre::host::Bytes> inputs = {vyre::host::as_bytes(x), vyre::host::as_bytes(y)};

  const auto outputs = backend.dispatch(program, inputs);
  const vyre::host::Pipeline pipeline = backend.pipeline(program);
  const auto piped = pipeline.dispatch(inputs);
  const std::size_t wrong = xor_mismatches(x, y, words_of(outputs.at(0)));
  const std::size_t wrong_piped = xor_mismatches(x, y, words_of(piped.at(0)));
  result.verified = wrong == 0 && wrong_piped == 0;
  result.verification = checked(result.verified, fmt::format("dispatch and pipeline outputs equal x ^ y "
                                                             "({} and {} differ)", wrong, wrong_piped));

  result.warmup = context.warmup(100);
  const std::uint32_t reps = context.reps(2000);
  reset_metrics(backend);
  const auto direct = time_calls(result.warmup, reps, [&] { (void)backend.dispatch(program, inputs); });
  result.metrics = metrics_of(backend);
  const auto piped_ns = time_calls(result.warmup, reps, [&] { (void)pipeline.dispatch(inputs); });
  set_time_figure(result, direct, 1e-3);
  add_time_extra(result, "pipeline_round_trip", piped_ns, 1e-3, "us");
  result.extra["elements_per_input"] = kElements;
  return {result};
}

}  // namespace vyre::bench
