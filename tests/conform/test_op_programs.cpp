// Every catalog op has programs that validate, use the op, and agree with their input/output specs.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "vyre/conform/cases.hpp"
#include "vyre/conform/op_programs.hpp"
#include "vyre/error.hpp"
#include "vyre/geometry.hpp"
#include "vyre/ops.hpp"
#include "vyre/validate.hpp"

namespace vc = vyre::conform;

namespace {

std::uint32_t cases_to_build(const vc::OpTest& test) {
  return test.max_cases == 1 ? 1 : 3;
}

// Element counts bound to each buffer for `cases` cases, as the runner binds them.
std::vector<std::uint64_t> bound_elements(const vyre::Program& p, const vc::OpTest& test,
                                          std::uint32_t cases) {
  std::vector<std::uint64_t> counts;
  for (const auto& b : p.buffers) {
    std::uint64_t n = b.count;
    for (const auto& in : test.inputs)
      if (in.buffer == b.name) n = std::uint64_t{in.per_case} * cases;
    counts.push_back(n);
  }
  return counts;
}

void check_specs_match(const vyre::Program& p, const vc::OpTest& test, std::uint32_t cases) {
  const auto inputs = p.input_indices();
  REQUIRE(inputs.size() == test.inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& decl = p.buffers[inputs[i]];
    CHECK(decl.name == test.inputs[i].buffer);
    CHECK(decl.element == test.inputs[i].storage);
    if (decl.count != 0) CHECK(decl.count == test.inputs[i].per_case * cases);
    if (test.inputs[i].operand) {
      CHECK(*test.inputs[i].operand < test.operands.size());
      CHECK(test.inputs[i].per_case <= test.lanes_per_case);
    }
  }
  const auto outputs = p.output_indices();
  REQUIRE(outputs.size() == test.outputs.size());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& decl = p.buffers[outputs[i]];
    CHECK(decl.name == test.outputs[i].buffer);
    CHECK(decl.element == test.outputs[i].storage);
    CHECK(decl.count == test.outputs[i].per_case * cases);
  }
}

}  // namespace

TEST_CASE("every catalog op has valid programs that use it") {
  std::size_t tests = 0;
  for (const vyre::OpInfo& op : vyre::op_catalog()) {
    CAPTURE(op.id);
    const auto op_tests = vc::op_tests(op);
    REQUIRE_FALSE(op_tests.empty());
    for (const auto& test : op_tests) {
      CAPTURE(test.name);
      ++tests;
      CHECK(test.op == op.id);
      REQUIRE(test.build);
      const std::uint32_t cases = cases_to_build(test);
      const vc::BuiltTest built = test.build(cases);
      const auto diagnostics = vyre::validate(built.program);
      for (const auto& d : diagnostics) FAIL_CHECK(d.path << ": " << d.message);
      if (!diagnostics.empty()) continue;
      const auto used = vyre::ops_used(built.program, built.config);
      CHECK(std::find(used.begin(), used.end(), op.id) != used.end());
      check_specs_match(built.program, test, cases);
      const auto geometry = vyre::resolve_geometry(built.program, built.config,
                                                   bound_elements(built.program, test, cases));
      CHECK(geometry.workgroup_count() * geometry.workgroup_invocations() >=
            std::uint64_t{cases} * test.lanes_per_case);
    }
  }
  CHECK(tests >= vyre::op_catalog().size());
}

TEST_CASE("binary ops see every pair of witnesses, then seeded random lanes") {
  const auto tests = vc::op_tests("bin.add.u32");
  REQUIRE(tests.size() == 1);
  const vc::OpTest& test = tests[0];
  REQUIRE(test.operands.size() == 2);
  const auto source = vc::LaneSource::witnesses_then_random(test, 42, vc::stream_id(test.op, 0), 100);
  const std::uint64_t wa = test.operands[0].witnesses.size();
  const std::uint64_t wb = test.operands[1].witnesses.size();
  CHECK(source.witness_lanes() == wa * wb);
  CHECK(source.lanes() == wa * wb + 100);
  std::set<std::pair<std::uint64_t, std::uint64_t>> pairs;
  for (std::uint64_t g = 0; g < source.witness_lanes(); ++g)
    pairs.insert({source.value(g, 0), source.value(g, 1)});
  CHECK(pairs.size() == wa * wb);
  CHECK(source.cases_for(test) == wa * wb + 100);

  const auto again = vc::LaneSource::witnesses_then_random(test, 42, vc::stream_id(test.op, 0), 5);
  CHECK(again.value(source.witness_lanes() + 3, 1) == source.value(source.witness_lanes() + 3, 1));
}

TEST_CASE("ternary ops cross every pair of operand positions") {
  const auto tests = vc::op_tests("fma.f32");
  REQUIRE(tests.size() == 1);
  const auto& test = tests[0];
  const auto source = vc::LaneSource::witnesses_then_random(test, 1, 2, 0);
  const std::uint64_t w = test.operands[0].witnesses.size();
  CHECK(source.witness_lanes() == 3 * w * w);
  std::set<std::pair<std::uint64_t, std::uint64_t>> ac;
  for (std::uint64_t g = 0; g < source.witness_lanes(); ++g) ac.insert({source.value(g, 0), source.value(g, 2)});
  CHECK(ac.size() == w * w);
}

TEST_CASE("input bytes hold each lane's operand, narrowed to the buffer's storage") {
  const auto tests = vc::op_tests("store.u8");
  const auto& test = tests.at(0);
  const auto source = vc::LaneSource::witnesses_then_random(test, 9, 1, 10);
  const std::uint32_t cases = source.cases_for(test);
  const auto inputs = vc::fill_inputs(test, source, 0, cases);
  REQUIRE(inputs.size() == 1);
  CHECK(inputs[0].size() == std::size_t{cases} * 4);  // u32 source words
  CHECK(inputs[0][4] == (source.value(1, 0) & 0xFF));
  const auto tail = vc::fill_inputs(test, source, cases - 2, 2);
  CHECK(std::equal(tail[0].begin(), tail[0].end(), inputs[0].end() - 8));
}

TEST_CASE("atomic tests compare shared words only where final memory is deterministic") {
  for (const char* id : {"atomic.add.u32", "atomic.exchange.u32", "atomic.min.i32.workgroup",
                         "atomic.compare_exchange.u64.workgroup"}) {
    CAPTURE(id);
    const auto tests = vc::op_tests(id);
    const bool deterministic = std::string(id).find("exchange") == std::string::npos;
    for (const auto& out : tests.at(0).outputs) {
      if (out.buffer == "shared") CHECK(out.compared == deterministic);
      if (out.buffer == "shared_old") CHECK_FALSE(out.compared);
      if (out.buffer == "old" || out.buffer == "solo" || out.buffer == "past_end_old") CHECK(out.compared);
    }
  }
}

TEST_CASE("unknown op ids are an error naming the fix") {
  CHECK_THROWS_WITH_AS(vc::op_tests("bin.frobnicate.u32"), doctest::Contains("Fix:"), vyre::Error);
}
