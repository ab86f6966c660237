// The comparison policy of SPEC §5: ULP distance on the ordered-bit scale, NaN, ±0, ±inf.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "vyre/conform/compare.hpp"
#include "vyre/conform/witnesses.hpp"

namespace vc = vyre::conform;
using vyre::Tolerance;
using vyre::Type;

namespace {
std::uint64_t f32(float v) { return std::bit_cast<std::uint32_t>(v); }
std::uint64_t f64(double v) { return std::bit_cast<std::uint64_t>(v); }
constexpr Tolerance kExact{0};
constexpr Tolerance kFour{4};
}  // namespace

TEST_CASE("adjacent floats are one ULP apart, in both directions and across binades") {
  const float one = 1.0f;
  CHECK(vc::ulp_distance(Type::F32, f32(one), f32(std::nextafter(one, 2.0f))) == 1);
  CHECK(vc::ulp_distance(Type::F32, f32(std::nextafter(one, 0.0f)), f32(one)) == 1);
  CHECK(vc::ulp_distance(Type::F32, f32(2.0f), f32(std::nextafter(2.0f, 0.0f))) == 1);
  CHECK(vc::ulp_distance(Type::F64, f64(1.0), f64(std::nextafter(1.0, 2.0))) == 1);
  CHECK(vc::ulp_distance(Type::F32, f32(-1.0f), f32(std::nextafter(-1.0f, -2.0f))) == 1);
  CHECK(vc::ulp_distance(Type::F32, f32(1.0f), f32(1.0f + 10 * std::numeric_limits<float>::epsilon())) == 10);
}

TEST_CASE("a sign crossing adds both magnitudes; +0 and -0 meet at zero") {
  const std::uint64_t min_sub = 1;
  const std::uint64_t neg_min_sub = 0x80000001;
  CHECK(vc::ulp_distance(Type::F32, min_sub, neg_min_sub) == 2);
  CHECK(vc::ulp_distance(Type::F32, 0, 0x80000000) == 0);
  CHECK(vc::ulp_distance(Type::F32, f32(1.0f), f32(-1.0f)) == 2 * 0x3F800000ull);
  CHECK(vc::ordered_bits(Type::F32, f32(-1.0f)) == -0x3F800000ll);
  CHECK(vc::ordered_bits(Type::F16, 0x8001) == -1);
}

TEST_CASE("ULP ops pass within the tolerance and fail beyond it") {
  const std::uint64_t x = f32(0.75f);
  CHECK(vc::compare_value(Type::F32, kFour, x, x + 4).match);
  CHECK(vc::compare_value(Type::F32, kFour, x, x - 4).match);
  const vc::Verdict beyond = vc::compare_value(Type::F32, kFour, x, x + 5);
  CHECK_FALSE(beyond.match);
  REQUIRE(beyond.ulp);
  CHECK(*beyond.ulp == 5);
  CHECK_FALSE(vc::compare_value(Type::F32, kExact, x, x + 1).match);
  CHECK(vc::compare_value(Type::F64, Tolerance{2}, f64(3.0), f64(3.0) + 2).match);
}

TEST_CASE("NaN matches only the canonical NaN") {
  const std::uint64_t nan = vc::canonical_nan(Type::F32);
  CHECK(nan == 0x7FC00000);
  CHECK(vc::compare_value(Type::F32, kFour, nan, nan).match);
  CHECK_FALSE(vc::compare_value(Type::F32, kFour, nan, 0x7FC00001).match);  // payload
  CHECK_FALSE(vc::compare_value(Type::F32, kFour, nan, 0xFFC00000).match);  // sign
  CHECK_FALSE(vc::compare_value(Type::F32, kFour, nan, f32(1.0f)).match);
  CHECK_FALSE(vc::compare_value(Type::F32, kFour, f32(1.0f), nan).match);
  CHECK(*vc::compare_value(Type::F32, kFour, f32(1.0f), nan).ulp == std::numeric_limits<std::uint64_t>::max());
  CHECK(vc::canonical_nan(Type::F64) == 0x7FF8000000000000ull);
  CHECK(vc::canonical_nan(Type::F16) == 0x7E00);
  CHECK(vc::canonical_nan(Type::BF16) == 0x7FC0);
}

TEST_CASE("infinities and zeros are exact even under a ULP tolerance") {
  const std::uint64_t inf = f32(std::numeric_limits<float>::infinity());
  const std::uint64_t max = f32(std::numeric_limits<float>::max());
  CHECK(vc::ulp_distance(Type::F32, inf, max) == 1);
  CHECK_FALSE(vc::compare_value(Type::F32, kFour, inf, max).match);
  CHECK_FALSE(vc::compare_value(Type::F32, kFour, max, inf).match);
  CHECK_FALSE(vc::compare_value(Type::F32, kFour, 0, 0x80000000).match);
  CHECK_FALSE(vc::compare_value(Type::F32, kFour, 0, 1).match);  // 0 vs min subnormal
  CHECK_FALSE(vc::compare_value(Type::F32, kFour, 1, 0).match);
  CHECK(vc::compare_value(Type::F32, kFour, 1, 3).match);       // subnormals within 2 ULP
}

TEST_CASE("integers, bools and f16/bf16 storage compare bit for bit") {
  CHECK(vc::compare_value(Type::U32, kFour, 5, 5).match);
  CHECK_FALSE(vc::compare_value(Type::U32, kFour, 5, 6).match);
  CHECK_FALSE(vc::compare_value(Type::I64, kFour, 0, 1).ulp.has_value());
  CHECK_FALSE(vc::compare_value(Type::Bool, kFour, 0, 1).match);
  CHECK_FALSE(vc::compare_value(Type::F16, kFour, 0x3C00, 0x3C01).match);
  CHECK_FALSE(vc::compare_value(Type::BF16, kFour, 0x3F80, 0x3F81).match);
  // Bits above the type's width are ignored.
  CHECK(vc::compare_value(Type::U8, kExact, 0x1FF, 0xFF).match);
}

TEST_CASE("values format as typed text and full-width hex") {
  CHECK(vc::format_typed(Type::F32, f32(1.5f)) == "1.5");
  CHECK(vc::format_typed(Type::F32, f32(0.1f)) == "0.1");
  CHECK(vc::format_typed(Type::F32, 0x80000000) == "-0");
  CHECK(vc::format_typed(Type::F32, 0xFF800000) == "-inf");
  CHECK(vc::format_typed(Type::F32, 0x7FC00000) == "nan");
  CHECK(vc::format_typed(Type::F64, f64(1.0 / 3.0)) == "0.3333333333333333");
  CHECK(vc::format_typed(Type::F16, 0x3C00) == "1");
  CHECK(vc::format_typed(Type::F16, 0x0001) == "5.9604645e-08");
  CHECK(vc::format_typed(Type::BF16, 0x4049) == "3.140625");
  CHECK(vc::format_typed(Type::I32, 0xFFFFFFFF) == "-1");
  CHECK(vc::format_typed(Type::I8, 0x80) == "-128");
  CHECK(vc::format_typed(Type::U32, 0xFFFFFFFF) == "4294967295");
  CHECK(vc::format_typed(Type::Bool, 1) == "true");
  CHECK(vc::format_hex(Type::F32, f32(1.5f)) == "0x3fc00000");
  CHECK(vc::format_hex(Type::U8, 7) == "0x07");
  CHECK(vc::format_hex(Type::F64, f64(1.0)) == "0x3ff0000000000000");
  CHECK(vc::format_value(Type::F32, f32(-2.0f)) == "f32 -2 (0xc0000000)");
}

TEST_CASE("elements round trip through little-endian bytes") {
  std::uint8_t bytes[8] = {};
  vc::write_element(Type::U16, 0xBEEF, bytes);
  CHECK(bytes[0] == 0xEF);
  CHECK(bytes[1] == 0xBE);
  CHECK(bytes[2] == 0);
  CHECK(vc::read_element(Type::U16, bytes) == 0xBEEF);
  vc::write_element(Type::F64, f64(-3.5), bytes);
  CHECK(vc::read_element(Type::F64, bytes) == f64(-3.5));
}
