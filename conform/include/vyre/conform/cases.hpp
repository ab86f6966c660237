// The lanes that feed a test (see op_programs.hpp): witness tuples first, then seeded random ones,
// or every 32-bit pattern for exhaustive runs; and the input bytes built from them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vyre/conform/op_programs.hpp"

namespace vyre::conform {

// Which lanes feed a test.
class LaneSource {
 public:
  // Witness tuples (the operands' tables crossed pairwise: every pair of operand positions takes
  // every combination of their witnesses, the other positions a value that cycles through their
  // tables), then `random_lanes` seeded random tuples. `stream` separates tests of one run (use
  // stream_id()).
  static LaneSource witnesses_then_random(const OpTest& test, std::uint64_t seed,
                                          std::uint64_t stream, std::uint64_t random_lanes);
  // Lane g is the 32-bit pattern g (one operand), for exhaustive runs of unary 32-bit ops.
  static LaneSource every_u32();

  std::uint64_t witness_lanes() const { return witness_lanes_; }
  std::uint64_t random_lanes() const { return random_lanes_; }
  std::uint64_t lanes() const { return witness_lanes_ + random_lanes_; }

  // Operand `operand` of lane `lane` (lane < lanes()).
  std::uint64_t value(std::uint64_t lane, std::size_t operand) const;

  // Cases needed to cover every lane: ceil(lanes / lanes_per_case), capped at max_cases (a capped
  // test runs its first max_cases * lanes_per_case lanes). Lanes past lanes() in the last case are
  // random lanes too.
  std::uint32_t cases_for(const OpTest& test) const;
  // How many of the first `cases` cases' lanes are witness lanes / random lanes.
  std::uint64_t witness_lanes_in(const OpTest& test, std::uint32_t cases) const;

 private:
  LaneSource() = default;
  std::uint64_t witness_value(std::uint64_t lane, std::size_t operand) const;

  bool exhaustive_ = false;
  std::uint64_t seed_ = 0;
  std::uint64_t stream_ = 0;
  std::uint64_t witness_lanes_ = 0;
  std::uint64_t random_lanes_ = 0;
  std::vector<OperandSpec> operands_;
  // Pairwise blocks: block b crosses operands pairs_[b].first and .second; starts_[b] is its first
  // witness lane.
  std::vector<std::pair<std::size_t, std::size_t>> pairs_;
  std::vector<std::uint64_t> starts_;
};

// A stable id for (op id, test index) so that each test draws its own random values.
std::uint64_t stream_id(std::string_view op_id, std::size_t test_index);

// The bytes of host input `input` for cases [first_case, first_case + cases).
std::vector<std::uint8_t> fill_input(const OpTest& test, const InputSpec& input,
                                     const LaneSource& lanes, std::uint64_t first_case,
                                     std::uint32_t cases);

// Every host input of a test, in declaration order.
std::vector<std::vector<std::uint8_t>> fill_inputs(const OpTest& test, const LaneSource& lanes,
                                                   std::uint64_t first_case, std::uint32_t cases);

// Byte length of host output `output` for `cases` cases.
std::uint64_t output_bytes(const OutputSpec& output, std::uint32_t cases);

}  // namespace vyre::conform
