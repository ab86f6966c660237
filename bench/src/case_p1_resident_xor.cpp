// P1: out = a ^ b over 256M resident u32 elements; bandwidth counts 2 reads + 1 write per element.
#include <fmt/core.h>

#include "case_support.hpp"
#include "cases.hpp"
#include "host_data.hpp"
#include "programs.hpp"

namespace vyre::bench {
namespace {

constexpr std::uint64_t kElements = 256ull << 20;

}  // namespace

std::vector<CaseResult> run_p1_resident_xor(Context& context) {
  vyre::host::Backend backend = context.main_backend();
  CaseResult result = start_case("P1", "resident xor, 256M u32", backend, "GB/s", "higher");
  const std::uint64_t n = context.scaled_size(kElements, 1024, kWorkgroup);
  const std::uint64_t bytes = n * 4;

  context.note(fmt::format("P1: {} elements, filling inputs", n));
  const auto a = random_words(n, context.seed_for("P1a"));
  const auto b = random_words(n, context.seed_for("P1b"));
  const vyre::host::Program program = backend.compile(xor_program(static_cast<std::uint32_t>(n)));
  const vyre::host::ResidentBuffer ra = backend.alloc(bytes);
  const vyre::host::ResidentBuffer rb = backend.alloc(bytes);
  const vyre::host::ResidentBuffer rout = backend.alloc(bytes);
  backend.upload(ra, 0, vyre::host::as_bytes(a));
  backend.upload(rb, 0, vyre::host::as_bytes(b));
  const std::vector<vyre::host::Binding> bindings = {vyre::host::Binding::of(ra), vyre::host::Binding::of(rb),
                                                     vyre::host::Binding::of(rout)};

  // Correct first: the output starts as zeros (a fresh resident buffer), so an unwritten element
  // shows as a mismatch.
  backend.dispatch_resident(program, bindings);
  const std::size_t mismatches = xor_mismatches(a, b, words_of(backend.download(rout, 0, bytes)));
  result.verified = mismatches == 0;
  result.verification = checked(result.verified, fmt::format("all {} elements equal a ^ b ({} differ)", n, mismatches));

  result.warmup = context.warmup(5);
  for (std::uint32_t w = 0; w < result.warmup; ++w) backend.dispatch_resident(program, bindings);
  reset_metrics(backend);
  std::vector<double> device_ns, wall_ns;
  for (std::uint32_t r = 0; r < context.reps(100); ++r) {
    const vyre::Timing t = backend.dispatch_resident_timed(program, bindings);
    device_ns.push_back(timing_ns(t));
    wall_ns.push_back(static_cast<double>(t.wall_ns));
    result.clock = timing_clock(t);
  }
  result.metrics = metrics_of(backend);
  set_bandwidth_figure(result, device_ns, 3 * bytes);
  add_time_extra(result, "wall_per_dispatch", wall_ns, 1e-3, "us");
  result.extra["elements"] = n;
  return {result};
}

}  // namespace vyre::bench
