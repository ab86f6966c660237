#include "vyre/conform/cases.hpp"

#include <algorithm>

#include "vyre/conform/compare.hpp"
#include "vyre/conform/witnesses.hpp"
#include "vyre/fingerprint.hpp"

namespace vyre::conform {
namespace {

std::uint64_t table_size(const OperandSpec& o) { return std::max<std::uint64_t>(o.witnesses.size(), 1); }

std::uint64_t table_value(const OperandSpec& o, std::uint64_t index) {
  if (o.witnesses.empty()) return 0;
  return o.witnesses[index % o.witnesses.size()];
}

// Operand streams are separated from each other inside one test's stream.
std::uint64_t operand_stream(std::uint64_t stream, std::size_t operand) {
  return stream ^ (0xA24BAED4963EE407ull * (operand + 1));
}

}  // namespace

LaneSource LaneSource::witnesses_then_random(const OpTest& test, std::uint64_t seed,
                                             std::uint64_t stream, std::uint64_t random_lanes) {
  LaneSource s;
  s.seed_ = seed;
  s.stream_ = stream;
  s.operands_ = test.operands;
  s.random_lanes_ = random_lanes;
  const std::size_t n = s.operands_.size();
  if (n == 1) {
    s.pairs_.push_back({0, 0});
    s.starts_.push_back(0);
    s.witness_lanes_ = table_size(s.operands_[0]);
  }
  for (std::size_t i = 0; n > 1 && i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      s.pairs_.push_back({i, j});
      s.starts_.push_back(s.witness_lanes_);
      s.witness_lanes_ += table_size(s.operands_[i]) * table_size(s.operands_[j]);
    }
  }
  return s;
}

LaneSource LaneSource::every_u32() {
  LaneSource s;
  s.exhaustive_ = true;
  s.witness_lanes_ = std::uint64_t{1} << 32;
  return s;
}

std::uint64_t LaneSource::witness_value(std::uint64_t lane, std::size_t operand) const {
  const auto block = static_cast<std::size_t>(
      std::upper_bound(starts_.begin(), starts_.end(), lane) - starts_.begin() - 1);
  const auto [first, second] = pairs_[block];
  const std::uint64_t offset = lane - starts_[block];
  if (first == second) return table_value(operands_[first], offset);
  const std::uint64_t n_second = table_size(operands_[second]);
  const std::uint64_t i = offset / n_second;
  const std::uint64_t j = offset % n_second;
  if (operand == first) return table_value(operands_[operand], i);
  if (operand == second) return table_value(operands_[operand], j);
  return table_value(operands_[operand], i + j + operand);
}

std::uint64_t LaneSource::value(std::uint64_t lane, std::size_t operand) const {
  if (exhaustive_) return lane & 0xFFFFFFFFull;
  if (lane < witness_lanes_) return witness_value(lane, operand);
  const Type t = operands_.at(operand).type;
  return random_value(t, seed_, operand_stream(stream_, operand), lane - witness_lanes_);
}

std::uint32_t LaneSource::cases_for(const OpTest& test) const {
  const std::uint64_t per = std::max<std::uint32_t>(test.lanes_per_case, 1);
  std::uint64_t cases = std::max<std::uint64_t>((lanes() + per - 1) / per, 1);
  if (test.max_cases != 0) cases = std::min<std::uint64_t>(cases, test.max_cases);
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(cases, 0xFFFFFFFFull));
}

std::uint64_t LaneSource::witness_lanes_in(const OpTest& test, std::uint32_t cases) const {
  return std::min<std::uint64_t>(witness_lanes_, std::uint64_t{cases} * test.lanes_per_case);
}

std::uint64_t stream_id(std::string_view op_id, std::size_t test_index) {
  const Sha256 h = sha256(op_id);
  std::uint64_t id = 0;
  for (int i = 0; i < 8; ++i) id |= std::uint64_t{h[i]} << (8 * i);
  return id ^ (0x9E3779B97F4A7C15ull * (test_index + 1));
}

std::vector<std::uint8_t> fill_input(const OpTest& test, const InputSpec& input,
                                     const LaneSource& lanes, std::uint64_t first_case,
                                     std::uint32_t cases) {
  const std::uint32_t size = byte_size(input.storage);
  std::vector<std::uint8_t> bytes(std::uint64_t{input.per_case} * cases * size, 0);
  if (!input.operand) return bytes;
  std::uint8_t* out = bytes.data();
  for (std::uint64_t k = 0; k < cases; ++k) {
    const std::uint64_t first_lane = (first_case + k) * test.lanes_per_case;
    for (std::uint32_t e = 0; e < input.per_case; ++e, out += size)
      write_element(input.storage, lanes.value(first_lane + e, *input.operand), out);
  }
  return bytes;
}

std::vector<std::vector<std::uint8_t>> fill_inputs(const OpTest& test, const LaneSource& lanes,
                                                   std::uint64_t first_case, std::uint32_t cases) {
  std::vector<std::vector<std::uint8_t>> all;
  for (const InputSpec& input : test.inputs) all.push_back(fill_input(test, input, lanes, first_case, cases));
  return all;
}

std::uint64_t output_bytes(const OutputSpec& output, std::uint32_t cases) {
  return std::uint64_t{output.per_case} * cases * byte_size(output.storage);
}

}  // namespace vyre::conform
