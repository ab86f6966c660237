// The op-program generator: for every op id of vyre::op_catalog(), the programs that exercise it,
// how to fill their inputs and which outputs to compare with which tolerance.
//
// A test runs many *cases* in one dispatch. Its inputs are fed from a stream of *lanes*: lane g is a
// tuple of operand values (one per OperandSpec), taken first from the operands' witness tables
// crossed pairwise, then from seeded random values (see cases.hpp). A case owns
// `lanes_per_case` consecutive lanes: one for elementwise ops (operands in, one result out), a
// whole workgroup or subgroup for barrier, atomic and subgroup tests, the whole grid for a few
// fixed-geometry tests (max_cases = 1). Element e of case k of an operand input holds operand
// `operand` of lane k * lanes_per_case + e; element e of case k of an output belongs to case k.
//
//   for (const auto& test : vyre::conform::op_tests("bin.add.f32")) {
//     auto built = test.build(cases);  // program + dispatch config for that many cases
//     ...                              // fill inputs (cases.hpp), run, compare (compare.hpp)
//   }
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vyre/ir.hpp"
#include "vyre/ops.hpp"

namespace vyre::conform {

// One component of the lane tuple: the type whose witnesses and random values feed it, and the
// witness table itself (the type's table plus the op's branch points).
struct OperandSpec {
  Type type = Type::U32;
  std::vector<std::uint64_t> witnesses;
};

// How the bytes of one host input (read, uniform or read_write buffer) are produced.
struct InputSpec {
  std::string buffer;                  // buffer name in the program
  Type storage = Type::U32;            // the buffer's element type
  std::uint32_t per_case = 1;          // elements per case (<= lanes_per_case for operand inputs)
  std::optional<std::size_t> operand;  // feed operand `operand` of each lane; nullopt: zero bytes
};

// One host output (read_write or output buffer) and how it is compared.
struct OutputSpec {
  std::string buffer;
  Type storage = Type::U32;
  std::uint32_t per_case = 1;  // elements per case
  Tolerance tolerance;         // SPEC §5; zero = bit-exact
  // False where the content legitimately depends on scheduling (atomic return values of shared
  // words, final memory after exchange/compare_exchange on shared words); never compared.
  bool compared = true;
};

struct BuiltTest {
  Program program;
  DispatchConfig config;
};

struct OpTest {
  std::string op;    // the op id this test certifies
  std::string name;  // what it checks, e.g. "elementwise", "shared words", "phases"
  std::vector<OperandSpec> operands;  // the lane tuple (empty: no fed inputs)
  std::uint32_t lanes_per_case = 1;
  std::uint32_t max_cases = 0;        // 0: any number; else at most this many cases
  std::vector<InputSpec> inputs;      // every host input, in declaration order
  std::vector<OutputSpec> outputs;    // every host output, in declaration order
  // The program and dispatch config for `cases` cases (buffer counts depend on it).
  std::function<BuiltTest(std::uint32_t cases)> build;
};

// The tests that exercise `op` (at least one for every catalog op).
std::vector<OpTest> op_tests(const OpInfo& op);
// By id; throws vyre::Error (VYRE_ERR_NOT_FOUND) for an id that is not in the catalog.
std::vector<OpTest> op_tests(std::string_view op_id);

// The lane that element `element` of case `case_index` of an output belongs to, when the output has
// one element per lane or several per lane (nullopt when elements do not map to single lanes, e.g.
// shared atomic words).
std::optional<std::uint64_t> lane_of_output(const OpTest& test, const OutputSpec& output,
                                            std::uint64_t case_index, std::uint64_t element);

}  // namespace vyre::conform
