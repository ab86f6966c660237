// Differential test of every op the cuda plugin declares against reference_cpu, through conform's
// op programs, witnesses and comparison policy (SPEC §5): each op's tests run their witness lanes
// (edge values crossed pairwise) plus seeded random lanes on both backends.
//
// Knobs (for replaying a failure): VYRE_TEST_OPS=id1,id2 (only these; a trailing '*' matches a
// prefix), VYRE_TEST_SEED, VYRE_TEST_RANDOM_LANES (default 512), VYRE_TEST_THREADS (default 8).
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include "gpu_support.hpp"
#include "vyre/conform/cases.hpp"
#include "vyre/conform/differential.hpp"
#include "vyre/conform/op_programs.hpp"
#include "vyre/ops.hpp"

namespace {

using namespace vyre::cudatest;  // test file: helpers of this test suite only

const bool kGpu = require_gpu();

bool selected(const std::string& op, const std::vector<std::string>& filters) {
  if (filters.empty()) return true;
  for (const std::string& filter : filters) {
    if (!filter.empty() && filter.back() == '*') {
      if (op.starts_with(filter.substr(0, filter.size() - 1))) return true;
    } else if (op == filter) {
      return true;
    }
  }
  return false;
}

std::vector<std::string> op_filters() {
  std::vector<std::string> filters;
  const char* text = std::getenv("VYRE_TEST_OPS");
  if (text == nullptr) return filters;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (!item.empty()) filters.push_back(item);
  }
  return filters;
}

struct OpOutcome {
  std::string op;
  std::uint64_t cases = 0;
  std::uint64_t compared = 0;
  std::uint64_t max_ulp = 0;
  std::string failure;  // empty: passed
};

OpOutcome run_op(const std::string& op, std::uint64_t seed, std::uint64_t random_lanes) {
  OpOutcome outcome{op, 0, 0, 0, {}};
  std::vector<vyre::conform::OpTest> tests;
  try {
    tests = vyre::conform::op_tests(op);
  } catch (const std::exception& error) {
    outcome.failure = std::string("op_tests failed: ") + error.what();
    return outcome;
  }
  for (std::size_t t = 0; t < tests.size(); ++t) {
    const auto& test = tests[t];
    const auto lanes = vyre::conform::LaneSource::witnesses_then_random(
        test, seed, vyre::conform::stream_id(op, t), random_lanes);
    const std::uint32_t cases = lanes.cases_for(test);
    const auto result = vyre::conform::run_differential(cuda(), reference(), test, lanes, 0, cases);
    outcome.cases += result.cases;
    outcome.compared += result.compared;
    outcome.max_ulp = std::max(outcome.max_ulp, result.max_ulp);
    if (result.passed()) continue;
    std::ostringstream text;
    text << "test `" << test.name << "` (" << cases << " cases): ";
    if (result.error) text << *result.error << "\n";
    if (result.first) {
      text << result.mismatches << " mismatching element(s); first:\n" << vyre::conform::describe(*result.first) << "\n";
    }
    outcome.failure += text.str();
  }
  return outcome;
}

}  // namespace

TEST_CASE("every declared op agrees with reference_cpu on witnesses and random inputs") {
  const std::uint64_t seed = env_u64("VYRE_TEST_SEED", 0x5eed2024);
  const std::uint64_t random_lanes = env_u64("VYRE_TEST_RANDOM_LANES", 512);
  const std::size_t threads = std::max<std::uint64_t>(1, env_u64("VYRE_TEST_THREADS", 8));
  const auto filters = op_filters();
  std::vector<std::string> ops;
  for (const std::string& op : cuda_ops()) {
    if (selected(op, filters)) ops.push_back(op);
  }
  REQUIRE_MESSAGE(!ops.empty(), "no op matches VYRE_TEST_OPS");
  std::cout << "differential: " << ops.size() << " ops, seed " << seed << ", " << random_lanes
            << " random lanes per test, " << threads << " threads" << std::endl;

  std::vector<OpOutcome> outcomes(ops.size());
  std::atomic<std::size_t> next{0};
  std::mutex print;
  std::vector<std::thread> workers;
  for (std::size_t w = 0; w < threads; ++w) {
    workers.emplace_back([&] {
      for (std::size_t i = next++; i < ops.size(); i = next++) {
        outcomes[i] = run_op(ops[i], seed, random_lanes);
        std::lock_guard lock(print);
        std::cout << (outcomes[i].failure.empty() ? "  pass " : "  FAIL ") << ops[i] << " (" << outcomes[i].cases
                  << " cases, " << outcomes[i].compared << " values, max ulp " << outcomes[i].max_ulp << ")"
                  << std::endl;
      }
    });
  }
  for (auto& worker : workers) worker.join();

  std::size_t failed = 0;
  for (const OpOutcome& outcome : outcomes) {
    if (outcome.failure.empty()) continue;
    ++failed;
    std::cout << "\nFAILED " << outcome.op << ":\n" << outcome.failure << "replay: VYRE_TEST_OPS=" << outcome.op
              << " VYRE_TEST_SEED=" << seed << " VYRE_TEST_RANDOM_LANES=" << random_lanes
              << " build/bin/test_cuda_gpu_ops" << std::endl;
  }
  std::size_t not_lowered = 0;
  for (const auto& info : vyre::op_catalog()) {
    bool declared = false;
    for (const auto& op : cuda_ops()) declared |= op == info.id;
    not_lowered += declared ? 0 : 1;
  }
  std::cout << "\ndifferential summary: " << ops.size() - failed << " passed, " << failed << " failed, of "
            << ops.size() << " ops run; " << not_lowered << " catalog ops not declared by cuda" << std::endl;
  CHECK(failed == 0);
}
