// --exhaustive: a unary f32 op over all 2^32 inputs, in chunks, candidate and reference running in
// parallel, chunks spread over --jobs workers.
#include <algorithm>
#include <future>
#include <mutex>
#include <thread>

#include "certify.hpp"
#include "vyre/conform/compare.hpp"
#include "vyre/conform/differential.hpp"

namespace vyre::conform::detail {
namespace {

constexpr std::uint32_t kChunkLanes = 1u << 22;

struct Compiled {
  host::Program candidate;
  host::Program reference;
  BuiltTest built;
};

// Run one chunk of cases on both backends at once and compare.
TestResult run_chunk(const Candidate& candidate, const host::Backend& reference, const Compiled& c,
                     const OpTest& test, const LaneSource& lanes, std::uint64_t first_case,
                     std::uint32_t cases) {
  TestResult r;
  r.cases = cases;
  const auto bytes = fill_inputs(test, lanes, first_case, cases);
  const auto inputs = as_inputs(bytes);
  auto expected = std::async(std::launch::async, [&] {
    return reference.dispatch(c.reference, inputs, c.built.config);
  });
  std::vector<host::ByteVector> actual;
  try {
    actual = candidate.instance.dispatch(c.candidate, inputs, c.built.config);
  } catch (const std::exception& e) {
    r.error = candidate.plugin->id + ": " + e.what();
  }
  try {
    auto want = expected.get();
    if (!r.error) compare_outputs(test, lanes, first_case, cases, want, actual, r);
  } catch (const std::exception& e) {
    r.error = "reference " + reference.label() + ": " + e.what();
  }
  return r;
}

Compiled compile_for(const Candidate& candidate, const host::Backend& reference, const OpTest& test,
                     std::uint32_t cases) {
  Compiled c;
  c.built = test.build(cases);
  c.candidate = candidate.instance.compile(c.built.program);
  c.reference = reference.compile(c.built.program);
  return c;
}

CertFailure failure_of(const TestResult& r, std::uint64_t first_case, const std::string& replay) {
  CertFailure f;
  f.test = "exhaustive";
  f.replay = replay;
  if (!r.first) {
    f.case_index = first_case;
    f.message = r.error.value_or("");
    return f;
  }
  f.case_index = r.first->case_index;
  f.output = r.first->output;
  f.element = r.first->case_index;
  f.inputs = r.first->inputs;
  f.expected = format_value(r.first->storage, r.first->expected);
  f.actual = format_value(r.first->storage, r.first->actual);
  f.ulp = r.first->ulp;
  return f;
}

}  // namespace

CertExhaustive certify_exhaustive(const OpInfo& op, const Candidate& candidate,
                                  const host::Backend& reference, const Options& options,
                                  Reporter& reporter) {
  const OpTest test = op_tests(op).at(0);
  const LaneSource lanes = LaneSource::every_u32();
  const std::uint64_t total = options.replay_case ? 1 : options.exhaustive_count;
  const std::uint64_t base = options.replay_case.value_or(options.exhaustive_first);
  const auto chunk = static_cast<std::uint32_t>(std::min<std::uint64_t>(kChunkLanes, total));
  const std::uint64_t chunks = (total + chunk - 1) / chunk;
  const auto tail = static_cast<std::uint32_t>(total - (chunks - 1) * chunk);

  CertExhaustive out;
  Compiled full;
  Compiled last;
  try {
    full = compile_for(candidate, reference, test, chunk);
    last = tail == chunk ? full : compile_for(candidate, reference, test, tail);
  } catch (const std::exception& e) {
    out.status = CertStatus::Fail;
    out.first_failure = CertFailure{"exhaustive", base, "", 0, {}, "", "", std::nullopt, e.what(), ""};
    return out;
  }

  std::mutex mutex;
  std::atomic<std::uint64_t> next{0};
  std::optional<std::pair<std::uint64_t, TestResult>> first_bad;  // lowest failing case wins
  reporter.start(op.id + " exhaustive", chunks);
  auto worker = [&] {
    for (std::uint64_t i = next++; i < chunks; i = next++) {
      const std::uint64_t first_case = base + i * chunk;
      const bool is_last = i + 1 == chunks;
      const std::uint32_t cases = is_last ? tail : chunk;
      TestResult r = run_chunk(candidate, reference, is_last ? last : full, test, lanes, first_case, cases);
      std::lock_guard lock(mutex);
      out.cases += cases;
      out.failures += r.error ? cases : r.mismatches;
      out.max_ulp = std::max(out.max_ulp, r.max_ulp);
      if (!r.passed() && (!first_bad || first_case < first_bad->first)) first_bad.emplace(first_case, std::move(r));
      reporter.advance();
    }
  };
  const auto workers = static_cast<unsigned>(std::min<std::uint64_t>(std::max(1u, options.jobs / 2), chunks));
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  reporter.finish();

  out.status = first_bad ? CertStatus::Fail : CertStatus::Pass;
  if (first_bad) {
    const TestResult& r = first_bad->second;
    const std::uint64_t k = r.first ? r.first->case_index : first_bad->first;
    out.first_failure = failure_of(r, first_bad->first, replay_command(options, candidate.plugin->id, op.id, k, true));
  }
  return out;
}

}  // namespace vyre::conform::detail
