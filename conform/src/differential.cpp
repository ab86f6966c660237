#include "vyre/conform/differential.hpp"

#include <algorithm>
#include <limits>
#include <sstream>

#include "vyre/conform/compare.hpp"
#include "vyre/error.hpp"

namespace vyre::conform {
namespace {

struct Outputs {
  std::vector<host::ByteVector> bytes;
  std::optional<std::string> error;
};

Outputs run_on(const host::Backend& backend, const BuiltTest& built,
               const std::vector<host::Bytes>& inputs) {
  try {
    const host::Program program = backend.compile(built.program);
    return {backend.dispatch(program, inputs, built.config), std::nullopt};
  } catch (const std::exception& e) {
    return {{}, std::string(e.what())};
  }
}

std::uint64_t element_at(const host::ByteVector& bytes, Type t, std::uint64_t element) {
  return read_element(t, reinterpret_cast<const std::uint8_t*>(bytes.data()) + element * byte_size(t));
}

std::vector<std::string> lane_inputs(const OpTest& test, const LaneSource& lanes,
                                     const OutputSpec& output, std::uint64_t case_index,
                                     std::uint64_t element_in_case) {
  if (test.operands.empty()) return {};
  const auto lane = lane_of_output(test, output, case_index, element_in_case);
  if (lane) return describe_lane(test, lanes, *lane);
  std::vector<std::string> lines = describe_lane(test, lanes, case_index * test.lanes_per_case);
  lines.push_back("(the element depends on all " + std::to_string(test.lanes_per_case) +
                  " lanes of the case; shown: its first lane)");
  return lines;
}

void compare_output(const OpTest& test, const LaneSource& lanes, std::uint64_t first_case,
                    const OutputSpec& spec, const host::ByteVector& expected,
                    const host::ByteVector& actual, TestResult& result) {
  const Type t = spec.storage;
  const std::uint64_t count = expected.size() / byte_size(t);
  if (actual.size() != expected.size()) {
    result.error = "candidate returned " + std::to_string(actual.size()) + " bytes for output '" +
                   spec.buffer + "', the reference " + std::to_string(expected.size());
    return;
  }
  for (std::uint64_t e = 0; e < count; ++e) {
    const std::uint64_t want = element_at(expected, t, e);
    const std::uint64_t got = element_at(actual, t, e);
    const Verdict v = compare_value(t, spec.tolerance, want, got);
    ++result.compared;
    if (v.ulp && *v.ulp != std::numeric_limits<std::uint64_t>::max())
      result.max_ulp = std::max(result.max_ulp, *v.ulp);
    if (v.match) continue;
    ++result.mismatches;
    if (result.first) continue;
    const std::uint64_t local_case = e / spec.per_case;
    Mismatch m;
    m.test = test.name;
    m.case_index = first_case + local_case;
    m.output = spec.buffer;
    m.element = e;
    m.storage = t;
    m.expected = want;
    m.actual = got;
    m.tolerance = spec.tolerance;
    m.ulp = v.ulp;
    m.inputs = lane_inputs(test, lanes, spec, first_case + local_case, e % spec.per_case);
    result.first = std::move(m);
  }
}

}  // namespace

std::vector<host::Bytes> as_inputs(const std::vector<std::vector<std::uint8_t>>& inputs) {
  std::vector<host::Bytes> views;
  for (const auto& in : inputs) views.push_back(std::as_bytes(std::span(in)));
  return views;
}

std::vector<std::string> describe_lane(const OpTest& test, const LaneSource& lanes, std::uint64_t lane) {
  std::vector<std::string> lines;
  for (const InputSpec& in : test.inputs) {
    if (!in.operand) continue;
    const Type t = test.operands[*in.operand].type;
    const std::uint64_t value = lanes.value(lane, *in.operand);
    lines.push_back(in.buffer + " = " + format_value(t, value));
  }
  return lines;
}

void compare_outputs(const OpTest& test, const LaneSource& lanes, std::uint64_t first_case,
                     std::uint32_t cases, const std::vector<host::ByteVector>& expected,
                     const std::vector<host::ByteVector>& actual, TestResult& result) {
  if (expected.size() != test.outputs.size() || actual.size() != test.outputs.size()) {
    result.error = "a backend returned " + std::to_string(actual.size()) + " outputs, the reference " +
                   std::to_string(expected.size()) + ", the test declares " +
                   std::to_string(test.outputs.size());
    return;
  }
  for (std::size_t i = 0; i < test.outputs.size(); ++i) {
    const OutputSpec& spec = test.outputs[i];
    if (!spec.compared) continue;
    if (expected[i].size() != output_bytes(spec, cases)) {
      result.error = "the reference returned " + std::to_string(expected[i].size()) +
                     " bytes for output '" + spec.buffer + "', expected " +
                     std::to_string(output_bytes(spec, cases));
      return;
    }
    compare_output(test, lanes, first_case, spec, expected[i], actual[i], result);
    if (result.error) return;
  }
}

TestResult run_differential(const host::Backend& candidate, const host::Backend& reference,
                            const OpTest& test, const LaneSource& lanes, std::uint64_t first_case,
                            std::uint32_t cases) {
  TestResult result;
  result.cases = cases;
  const std::uint64_t first_lane = first_case * test.lanes_per_case;
  const std::uint64_t lane_count = std::uint64_t{cases} * test.lanes_per_case;
  const std::uint64_t witness_end = std::min(lanes.witness_lanes(), first_lane + lane_count);
  result.witness_lanes = witness_end > first_lane ? witness_end - first_lane : 0;
  result.random_lanes = test.operands.empty() ? 0 : lane_count - result.witness_lanes;
  if (test.operands.empty()) result.witness_lanes = 0;

  const BuiltTest built = test.build(cases);
  const auto input_bytes = fill_inputs(test, lanes, first_case, cases);
  const auto inputs = as_inputs(input_bytes);
  const Outputs expected = run_on(reference, built, inputs);
  if (expected.error) {
    result.error = "reference " + reference.label() + ": " + *expected.error;
    return result;
  }
  const Outputs actual = run_on(candidate, built, inputs);
  if (actual.error) {
    result.error = candidate.label() + ": " + *actual.error;
    return result;
  }
  compare_outputs(test, lanes, first_case, cases, expected.bytes, actual.bytes, result);
  return result;
}

std::string describe(const Mismatch& m) {
  std::ostringstream out;
  out << "  test:     " << m.test << ", case " << m.case_index << ", " << m.output << "[" << m.element << "]\n";
  for (const auto& in : m.inputs) out << "  input:    " << in << "\n";
  out << "  expected: " << format_value(m.storage, m.expected) << "\n";
  out << "  actual:   " << format_value(m.storage, m.actual) << "\n";
  if (m.ulp) {
    out << "  ulp:      ";
    if (*m.ulp == std::numeric_limits<std::uint64_t>::max())
      out << "n/a (NaN against a number)";
    else
      out << *m.ulp;
    out << " (allowed " << m.tolerance.max_ulp << ")\n";
  }
  return out.str();
}

}  // namespace vyre::conform
