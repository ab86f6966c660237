#include "math/data_tables.hpp"

#include <array>

namespace vyre::math {
namespace {

// 2/pi = 0.A2F9836E4E441529FC2757D1F534DDC0... (hex). 19 words cover the window the f64 reduction
// reads for the largest finite double (bits up to 64 * 19 after the point); a test recomputes
// them with GMP.
constexpr std::array<std::uint64_t, 20> kTwoOverPi = {
    0x0000000000000000ULL, 0xA2F9836E4E441529ULL, 0xFC2757D1F534DDC0ULL, 0xDB6295993C439041ULL,
    0xFE5163ABDEBBC561ULL, 0xB7246E3A424DD2E0ULL, 0x06492EEA09D1921CULL, 0xFE1DEB1CB129A73EULL,
    0xE88235F52EBB4484ULL, 0xE99C7026B45F7E41ULL, 0x3991D639835339F4ULL, 0x9C845F8BBDF9283BULL,
    0x1FF897FFDE05980FULL, 0xEF2F118B5A0A6D1FULL, 0x6D367ECF27CB09B7ULL, 0x4F463F669E5FEA2DULL,
    0x7527BAC7EBE5F17BULL, 0x3D0739F78A5292EAULL, 0x6BFB5FB11F8D5D08ULL, 0x56033046FC7B6BABULL,
};

}  // namespace

const DataTable& two_over_pi_table() {
  static const DataTable table{"vyre_math_two_over_pi", kTwoOverPi};
  return table;
}

}  // namespace vyre::math
