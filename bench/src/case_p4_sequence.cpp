// P4: a resident sequence of 4 steps repeated 1000 times (Backend::sequence: the backend may replay
// the repeated steps as one graph), per step; beside it the same 4000 launches enqueued one by one
// (dispatch_resident_async, then waiting for all) as `one_by_one_per_step`.
#include <fmt/core.h>

#include "case_support.hpp"
#include "cases.hpp"
#include "clock.hpp"
#include "host_data.hpp"
#include "programs.hpp"

namespace vyre::bench {
namespace {

constexpr std::uint32_t kElements = 1024;
constexpr std::uint64_t kRepeats = 1000;
constexpr std::size_t kSteps = 4;

struct State {
  vyre::host::ResidentBuffer x, y;
};

void one_by_one(const vyre::host::Backend& backend, const vyre::host::Sequence& sequence) {
  std::vector<vyre::host::PendingDispatch> pending;
  pending.reserve(sequence.repeat_count * sequence.repeated.size());
  for (std::uint64_t r = 0; r < sequence.repeat_count; ++r) {
    for (const auto& step : sequence.repeated) {
      std::vector<vyre::host::Binding> bindings;
      for (const auto& buffer : step.buffers) bindings.push_back(vyre::host::Binding::of(buffer));
      pending.push_back(backend.dispatch_resident_async(step.program, bindings, step.config));
    }
  }
  for (const auto& p : pending) (void)p.wait();
}

// Upload x0/y0, run `run` once, and compare x and y with the host's result.
template <class Run>
std::string check_once(const vyre::host::Backend& backend, const State& s, const std::vector<std::uint32_t>& x0,
                       const std::vector<std::uint32_t>& y0, std::uint64_t repeats, const Run& run, bool& ok) {
  backend.upload(s.x, 0, vyre::host::as_bytes(x0));
  backend.upload(s.y, 0, vyre::host::as_bytes(y0));
  run();
  std::vector<std::uint32_t> x = x0, y = y0;
  sequence_steps_on_host(x, y, repeats);
  const bool same = words_of(backend.download(s.x, 0, kElements * 4)) == x &&
                    words_of(backend.download(s.y, 0, kElements * 4)) == y;
  ok = ok && same;
  return same ? "equal" : "DIFFER";
}

template <class Run>
std::vector<double> time_per_step(std::uint32_t warmup, std::uint32_t reps, double steps, const Run& run) {
  for (std::uint32_t w = 0; w < warmup; ++w) run();
  std::vector<double> samples;
  for (std::uint32_t r = 0; r < reps; ++r) {
    const std::uint64_t start = now_ns();
    run();
    samples.push_back(static_cast<double>(now_ns() - start) / steps);
  }
  return samples;
}

}  // namespace

std::vector<CaseResult> run_p4_sequence(Context& context) {
  vyre::host::Backend backend = context.main_backend();
  CaseResult result = start_case("P4", "resident sequence, 4 steps x 1000", backend, "us/step", "lower");
  const std::uint64_t repeats = context.scaled_count(kRepeats);
  State s{backend.alloc(kElements * 4), backend.alloc(kElements * 4)};
  vyre::host::Sequence sequence;
  for (const vyre::Program& p : sequence_step_programs(kElements))
    sequence.repeated.push_back(vyre::host::SequenceStep{backend.compile(p), {}, {s.x, s.y}});
  sequence.repeat_count = repeats;

  const auto x0 = random_words(kElements, context.seed_for("P4x"));
  const auto y0 = random_words(kElements, context.seed_for("P4y"));
  result.verified = true;
  const std::string seq_check = check_once(backend, s, x0, y0, repeats, [&] { backend.sequence(sequence); }, result.verified);
  const std::string one_check = check_once(backend, s, x0, y0, repeats, [&] { one_by_one(backend, sequence); }, result.verified);
  result.verification = checked(result.verified, fmt::format("x, y after {} repeats: sequence {}, one by one {}",
                                                             repeats, seq_check, one_check));

  const double steps = static_cast<double>(repeats * kSteps);
  result.warmup = context.warmup(2);
  const std::uint32_t reps = context.reps(20);
  reset_metrics(backend);
  const auto seq_ns = time_per_step(result.warmup, reps, steps, [&] { backend.sequence(sequence); });
  result.metrics = metrics_of(backend);
  const auto one_ns = time_per_step(result.warmup, reps, steps, [&] { one_by_one(backend, sequence); });
  set_time_figure(result, seq_ns, 1e-3);
  add_time_extra(result, "one_by_one_per_step", one_ns, 1e-3, "us");
  result.extra["repeats"] = repeats;
  result.extra["steps_per_repeat"] = kSteps;
  result.extra["elements"] = kElements;
  return {result};
}

}  // namespace vyre::bench
