// The witness tables cover every value SPEC §5 names, and the random values are reproducible.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>
#include <string_view>

#include "vyre/conform/compare.hpp"
#include "vyre/conform/witnesses.hpp"

namespace vc = vyre::conform;
using vyre::Type;

namespace {

const vc::Witness* find(Type t, std::string_view name) {
  for (const auto& w : vc::witness_table(t))
    if (w.name == name) return &w;
  return nullptr;
}

std::uint64_t bits_of(Type t, std::string_view name) {
  const vc::Witness* w = find(t, name);
  REQUIRE_MESSAGE(w != nullptr, vyre::type_name(t), " lacks witness ", name);
  return w->bits;
}

bool has_value(Type t, std::uint64_t bits) {
  const auto values = vc::witness_values(t);
  return std::find(values.begin(), values.end(), bits) != values.end();
}

}  // namespace

TEST_CASE("integer tables hold SPEC §5's values") {
  CHECK(bits_of(Type::U32, "0") == 0);
  CHECK(bits_of(Type::U32, "1") == 1);
  CHECK(bits_of(Type::U32, "2") == 2);
  CHECK(bits_of(Type::U32, "max") == 0xFFFFFFFF);
  CHECK(bits_of(Type::U32, "max-1") == 0xFFFFFFFE);
  CHECK(bits_of(Type::U32, "min") == 0);
  CHECK(bits_of(Type::U32, "min+1") == 1);
  CHECK(bits_of(Type::U32, "-1") == 0xFFFFFFFF);
  CHECK(bits_of(Type::U32, "sign_bit") == 0x80000000);
  CHECK(bits_of(Type::U32, "alternating_01") == 0x55555555);
  CHECK(bits_of(Type::U32, "alternating_10") == 0xAAAAAAAA);
  CHECK(bits_of(Type::I32, "max") == 0x7FFFFFFF);
  CHECK(bits_of(Type::I32, "max-1") == 0x7FFFFFFE);
  CHECK(bits_of(Type::I32, "min") == 0x80000000);
  CHECK(bits_of(Type::I32, "min+1") == 0x80000001);
  CHECK(bits_of(Type::I32, "-1") == 0xFFFFFFFF);
  CHECK(bits_of(Type::I64, "min") == 0x8000000000000000ull);
  CHECK(bits_of(Type::I64, "-1") == 0xFFFFFFFFFFFFFFFFull);
  CHECK(bits_of(Type::U64, "alternating_10") == 0xAAAAAAAAAAAAAAAAull);
  CHECK(bits_of(Type::I8, "min") == 0x80);
  CHECK(bits_of(Type::U16, "max") == 0xFFFF);
  CHECK(bits_of(Type::I16, "alternating_01") == 0x5555);
  for (Type t : {Type::U32, Type::I32, Type::U64, Type::I64, Type::U8, Type::U16, Type::I8, Type::I16})
    for (const auto& w : vc::witness_table(t))
      CHECK_MESSAGE((w.bits >> (vyre::bit_width(t) - 1)) <= 1, vyre::type_name(t), " ", w.name);
}

TEST_CASE("float tables hold SPEC §5's values") {
  CHECK(bits_of(Type::F32, "+0") == 0);
  CHECK(bits_of(Type::F32, "-0") == 0x80000000);
  CHECK(bits_of(Type::F32, "+inf") == 0x7F800000);
  CHECK(bits_of(Type::F32, "-inf") == 0xFF800000);
  CHECK(bits_of(Type::F32, "nan") == 0x7FC00000);
  CHECK(bits_of(Type::F32, "min_subnormal") == 1);
  CHECK(bits_of(Type::F32, "max_subnormal") == 0x007FFFFF);
  CHECK(bits_of(Type::F32, "min_normal") == 0x00800000);
  CHECK(bits_of(Type::F32, "max_normal") == 0x7F7FFFFF);
  CHECK(bits_of(Type::F32, "1") == 0x3F800000);
  CHECK(bits_of(Type::F32, "-1") == 0xBF800000);
  CHECK(bits_of(Type::F32, "0.5") == 0x3F000000);
  CHECK(bits_of(Type::F32, "1/3") == std::bit_cast<std::uint32_t>(1.0f / 3.0f));
  CHECK(bits_of(Type::F32, "pi") == std::bit_cast<std::uint32_t>(std::numbers::pi_v<float>));
  CHECK(bits_of(Type::F64, "max_normal") == 0x7FEFFFFFFFFFFFFFull);
  CHECK(bits_of(Type::F64, "min_normal") == 0x0010000000000000ull);
  CHECK(bits_of(Type::F64, "max_subnormal") == 0x000FFFFFFFFFFFFFull);
  CHECK(bits_of(Type::F64, "1/3") == std::bit_cast<std::uint64_t>(1.0 / 3.0));
  CHECK(bits_of(Type::F16, "max_normal") == 0x7BFF);
  CHECK(bits_of(Type::F16, "min_normal") == 0x0400);
  CHECK(bits_of(Type::F16, "1") == 0x3C00);
  CHECK(bits_of(Type::F16, "1/3") == 0x3555);
  CHECK(bits_of(Type::F16, "pi") == 0x4248);
  CHECK(bits_of(Type::BF16, "max_normal") == 0x7F7F);
  CHECK(bits_of(Type::BF16, "pi") == 0x4049);
  CHECK(bits_of(Type::BF16, "1/3") == 0x3EAB);
  CHECK(bits_of(Type::Bool, "true") == 1);
  CHECK(bits_of(Type::Bool, "false") == 0);
}

TEST_CASE("float rounding into narrow types is to nearest even, with overflow to inf") {
  CHECK(vc::float_bits(Type::F16, 65504.0) == 0x7BFF);
  CHECK(vc::float_bits(Type::F16, 65519.0) == 0x7BFF);
  CHECK(vc::float_bits(Type::F16, 65520.0) == 0x7C00);
  CHECK(vc::float_bits(Type::F16, std::ldexp(1.0, -24)) == 0x0001);
  CHECK(vc::float_bits(Type::F16, std::ldexp(1.0, -25)) == 0x0000);  // tie to even: 0
  CHECK(vc::float_bits(Type::F16, 1.5 * std::ldexp(1.0, -25)) == 0x0001);
  CHECK(vc::float_bits(Type::F16, 1.0 + std::ldexp(1.0, -11)) == 0x3C00);
  CHECK(vc::float_bits(Type::F16, 1.0 + 3 * std::ldexp(1.0, -11)) == 0x3C02);
  CHECK(vc::float_bits(Type::F16, -2.0) == 0xC000);
  CHECK(vc::float_bits(Type::BF16, 1.0 + std::ldexp(1.0, -8)) == 0x3F80);
  CHECK(vc::float_bits(Type::BF16, 3.4028234663852886e38) == 0x7F80);
  CHECK(vc::next_up(Type::F32, 0x80000000) == 1);
  CHECK(vc::next_down(Type::F32, 0) == 0x80000001);
  CHECK(vc::next_up(Type::F32, 0x7F800000) == 0x7F800000);
  CHECK(vc::next_up(Type::F16, 0x7BFF) == 0x7C00);
}

TEST_CASE("op witnesses add the branch points of each function") {
  const vyre::OpInfo* exp = vyre::find_op("un.exp.f32");
  REQUIRE(exp);
  const auto exp_points = vc::branch_points(*exp, 0, Type::F32);
  const std::uint64_t ln_max = std::bit_cast<std::uint32_t>(88.72283935546875f);
  CHECK(std::count(exp_points.begin(), exp_points.end(), ln_max) == 1);
  CHECK(std::count(exp_points.begin(), exp_points.end(), ln_max + 1) == 1);
  CHECK(std::count(exp_points.begin(), exp_points.end(), ln_max - 1) == 1);

  const vyre::OpInfo* shl = vyre::find_op("bin.shl.u64");
  REQUIRE(shl);
  const auto amounts = vc::op_witnesses(*shl, 1, Type::U32);
  for (std::uint64_t a : {63, 64, 65, 127, 128})
    CHECK(std::count(amounts.begin(), amounts.end(), a) == 1);

  const vyre::OpInfo* store_f16 = vyre::find_op("store.f16");
  REQUIRE(store_f16);
  const auto stores = vc::op_witnesses(*store_f16, 0, Type::F32);
  CHECK(std::count(stores.begin(), stores.end(), std::bit_cast<std::uint32_t>(65520.0f)) == 1);

  const vyre::OpInfo* to_int = vyre::find_op("cast.f32.i32");
  REQUIRE(to_int);
  const auto casts = vc::op_witnesses(*to_int, 0, Type::F32);
  CHECK(std::count(casts.begin(), casts.end(), std::bit_cast<std::uint32_t>(2147483648.0f)) == 1);
  // No duplicates anywhere.
  auto sorted = casts;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
}

TEST_CASE("every storage type has a table without duplicate values") {
  for (Type t : vyre::kStorageTypes) {
    const auto values = vc::witness_values(t);
    CHECK(values.size() >= 2);
    CHECK(has_value(t, 0));
    auto sorted = values;
    std::sort(sorted.begin(), sorted.end());
    CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
  }
}

TEST_CASE("random values are a pure function of seed, stream and index") {
  CHECK(vc::random_value(Type::F32, 7, 3, 100) == vc::random_value(Type::F32, 7, 3, 100));
  CHECK(vc::random_value(Type::F32, 7, 3, 100) != vc::random_value(Type::F32, 8, 3, 100));
  CHECK(vc::random_value(Type::U64, 7, 3, 100) != vc::random_value(Type::U64, 7, 4, 100));
  int moderate = 0;
  for (std::uint64_t i = 0; i < 200; ++i) {
    const std::uint64_t v = vc::random_value(Type::F32, 1, 2, i);
    CHECK(v <= 0xFFFFFFFFull);
    const float f = std::bit_cast<float>(static_cast<std::uint32_t>(v));
    if (std::isfinite(f) && std::fabs(f) >= 1.0f / 512 && std::fabs(f) < 512) ++moderate;
    CHECK(vc::random_value(Type::Bool, 1, 2, i) <= 1);
    CHECK(vc::random_value(Type::U8, 1, 2, i) <= 0xFF);
  }
  CHECK(moderate >= 100);  // every odd index is of moderate magnitude
}
