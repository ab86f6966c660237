// R1: reference_cpu host dispatch of a 1M-element u32 xor (whatever --backend says), wall time.
// The goal (<= 30 ms) is for the 2-core development machine; `host_threads` says where it ran.
#include <fmt/core.h>

#include "case_support.hpp"
#include "cases.hpp"
#include "clock.hpp"
#include "host_data.hpp"
#include "parallel.hpp"
#include "programs.hpp"

namespace vyre::bench {
namespace {

constexpr std::uint32_t kElements = 1u << 20;

}  // namespace

std::vector<CaseResult> run_r1_reference_xor(Context& context) {
  vyre::host::Backend backend = context.backend("reference_cpu");
  CaseResult result = start_case("R1", "reference_cpu xor of two 1M-u32 buffers", backend, "ms", "lower");
  const auto a = random_words(kElements, context.seed_for("R1a"));
  const auto b = random_words(kElements, context.seed_for("R1b"));
  const vyre::host::Program program = backend.compile(xor_program(kElements));
  const std::vector<vyre::host::Bytes> inputs = {vyre::host::as_bytes(a), vyre::host::as_bytes(b)};

  const std::size_t wrong = xor_mismatches(a, b, words_of(backend.dispatch(program, inputs).at(0)));
  result.verified = wrong == 0;
  result.verification = checked(result.verified, fmt::format("out equals a ^ b ({} differ)", wrong));

  result.warmup = context.warmup(3);
  for (std::uint32_t w = 0; w < result.warmup; ++w) (void)backend.dispatch(program, inputs);
  reset_metrics(backend);
  std::vector<double> samples;
  for (std::uint32_t r = 0; r < context.reps(30); ++r) {
    const std::uint64_t start = now_ns();
    (void)backend.dispatch(program, inputs);
    samples.push_back(static_cast<double>(now_ns() - start));
  }
  result.metrics = metrics_of(backend);
  set_time_figure(result, samples, 1e-6);
  result.extra["host_threads"] = host_threads();
  result.extra["elements"] = kElements;
  return {result};
}

}  // namespace vyre::bench
