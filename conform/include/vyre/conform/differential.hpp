// Differential execution: run one OpTest's cases on a candidate and a reference backend and compare
// every compared output element by the policy of compare.hpp. This is the core of vyre-conform and
// what other GPU differential tests reuse:
//
//   auto lanes = LaneSource::witnesses_then_random(test, seed, stream_id(test.op, 0), 1024);
//   TestResult r = run_differential(cuda, reference, test, lanes, 0, lanes.cases_for(test));
//   if (r.first) std::cerr << describe(*r.first);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vyre/backend.hpp"
#include "vyre/conform/cases.hpp"
#include "vyre/conform/op_programs.hpp"

namespace vyre::conform {

struct Mismatch {
  std::string test;                 // OpTest::name
  std::uint64_t case_index = 0;     // within the test (first_case + k)
  std::string output;               // output buffer
  std::uint64_t element = 0;        // element within the whole output buffer
  Type storage = Type::U32;
  std::uint64_t expected = 0;
  std::uint64_t actual = 0;
  Tolerance tolerance;
  std::optional<std::uint64_t> ulp;
  std::vector<std::string> inputs;  // "a = f32 1.5 (0x3fc00000)" for the lane the element belongs to
};

struct TestResult {
  std::uint64_t cases = 0;
  std::uint64_t witness_lanes = 0;  // lanes of those cases fed from witness tables
  std::uint64_t random_lanes = 0;   // lanes fed random values
  std::uint64_t compared = 0;       // elements compared
  std::uint64_t mismatches = 0;
  std::uint64_t max_ulp = 0;        // over compared float elements that were not NaN vs number
  std::optional<Mismatch> first;
  std::optional<std::string> error;  // a compile or dispatch failed: "candidate: <message>"

  bool passed() const { return !error && mismatches == 0; }
};

// Run cases [first_case, first_case + cases) of `test` (fed by `lanes`) on both backends.
// Never throws for a backend failure: it is reported in TestResult::error.
TestResult run_differential(const host::Backend& candidate, const host::Backend& reference,
                            const OpTest& test, const LaneSource& lanes, std::uint64_t first_case,
                            std::uint32_t cases);

// Compare outputs already produced (used by run_differential and the exhaustive runner); adds to
// `result`. `expected` and `actual` hold the test's host outputs in declaration order.
void compare_outputs(const OpTest& test, const LaneSource& lanes, std::uint64_t first_case,
                     std::uint32_t cases, const std::vector<host::ByteVector>& expected,
                     const std::vector<host::ByteVector>& actual, TestResult& result);

// The inputs of `lane` as "buffer = <typed value>" lines, one per operand input.
std::vector<std::string> describe_lane(const OpTest& test, const LaneSource& lanes, std::uint64_t lane);

// Multi-line text: which test, case and element, the inputs, expected and actual (typed and hex),
// and the ULP distance against the tolerance.
std::string describe(const Mismatch& mismatch);

// Host input views over byte vectors.
std::vector<host::Bytes> as_inputs(const std::vector<std::vector<std::uint8_t>>& inputs);

}  // namespace vyre::conform
