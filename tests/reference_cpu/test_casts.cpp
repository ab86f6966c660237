// Casts and bitcasts (SPEC §2 "Casts"; docs/SEMANTICS.md "NaN bit patterns are never observable"):
// saturating float->int with NaN -> 0, int->float ties to even (including u64 sticky bits),
// extension by the source's signedness, bool conversions, canonical NaN through casts and bitcasts.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "refcpu_harness.hpp"

using namespace refcpu_test;
using vyre::Type;

namespace {

struct Row {
  Type from, to;
  std::uint64_t in, expected;
};

std::uint64_t F(float v) { return f32_bits(v); }
std::uint64_t D(double v) { return f64_bits(v); }
std::uint64_t I32(std::int32_t v) { return static_cast<std::uint32_t>(v); }
std::uint64_t I64(std::int64_t v) { return static_cast<std::uint64_t>(v); }

constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::uint64_t kNanF = 0x7FC00000u;
constexpr std::uint64_t kNan = 0x7FF8000000000000ull;

const std::vector<Row> kCasts = {
    // float -> int: toward zero, saturating, NaN -> 0
    {Type::F32, Type::I32, F(2.9f), 2},
    {Type::F32, Type::I32, F(-2.9f), I32(-2)},
    {Type::F32, Type::I32, F(-0.5f), 0},
    {Type::F32, Type::I32, F(std::nanf("")), 0},
    {Type::F32, Type::I32, F(kInfF), 0x7FFFFFFF},
    {Type::F32, Type::I32, F(-kInfF), 0x80000000},
    {Type::F32, Type::I32, F(3e9f), 0x7FFFFFFF},
    {Type::F32, Type::I32, F(-3e9f), 0x80000000},
    {Type::F32, Type::I32, F(2147483520.0f), 2147483520u},
    {Type::F32, Type::I32, F(2147483648.0f), 0x7FFFFFFF},
    {Type::F32, Type::I32, F(-2147483648.0f), 0x80000000},
    {Type::F32, Type::U32, F(-1.0f), 0},
    {Type::F32, Type::U32, F(-0.9f), 0},
    {Type::F32, Type::U32, F(4294967040.0f), 4294967040u},
    {Type::F32, Type::U32, F(4294967296.0f), 0xFFFFFFFF},
    {Type::F32, Type::U32, F(std::nanf("")), 0},
    {Type::F32, Type::U32, F(kInfF), 0xFFFFFFFF},
    {Type::F32, Type::U64, F(1e19f), 9999999980506447872ull},
    {Type::F32, Type::U64, F(2e19f), 0xFFFFFFFFFFFFFFFFull},
    {Type::F32, Type::I64, F(1e19f), 0x7FFFFFFFFFFFFFFFull},
    {Type::F32, Type::I64, F(-9223372036854775808.0f), 0x8000000000000000ull},
    {Type::F32, Type::I64, F(-1e19f), 0x8000000000000000ull},
    {Type::F64, Type::I64, D(9.3e18), 0x7FFFFFFFFFFFFFFFull},
    {Type::F64, Type::I64, D(-9.3e18), 0x8000000000000000ull},
    {Type::F64, Type::I64, D(9223372036854775808.0), 0x7FFFFFFFFFFFFFFFull},
    {Type::F64, Type::I64, D(9223372036854774784.0), 9223372036854774784ull},
    {Type::F64, Type::I64, D(-1.5), I64(-1)},
    {Type::F64, Type::I64, D(std::nan("")), 0},
    {Type::F64, Type::U64, D(18446744073709551616.0), 0xFFFFFFFFFFFFFFFFull},
    {Type::F64, Type::U64, D(18446744073709549568.0), 18446744073709549568ull},
    {Type::F64, Type::U64, D(-1.0), 0},
    {Type::F64, Type::U64, D(-kInf), 0},
    {Type::F64, Type::I32, D(2147483647.9), 0x7FFFFFFF},
    {Type::F64, Type::I32, D(2147483648.0), 0x7FFFFFFF},
    {Type::F64, Type::I32, D(-2147483648.9), 0x80000000},
    {Type::F64, Type::I32, D(-2147483649.0), 0x80000000},
    {Type::F64, Type::U32, D(4294967295.5), 0xFFFFFFFF},
    {Type::F64, Type::U32, D(4294967296.0), 0xFFFFFFFF},
    {Type::F64, Type::U32, D(std::nan("")), 0},
    // int -> float: round to nearest, ties to even
    {Type::I32, Type::F32, 16777217, F(16777216.0f)},
    {Type::I32, Type::F32, 16777219, F(16777220.0f)},
    {Type::I32, Type::F32, I32(-16777217), F(-16777216.0f)},
    {Type::U32, Type::F32, 0xFFFFFFFF, F(4294967296.0f)},
    {Type::U32, Type::F32, 0xFFFFFF7F, F(4294967040.0f)},
    {Type::U32, Type::F32, 0xFFFFFF80, F(4294967296.0f)},
    {Type::U64, Type::F32, 0xFFFFFFFFFFFFFFFFull, 0x5F800000},
    {Type::U64, Type::F32, 0x8000008000000000ull, 0x5F000000},
    {Type::U64, Type::F32, 0x8000008000000001ull, 0x5F000001},
    {Type::I64, Type::F32, 0x8000000000000000ull, 0xDF000000},
    {Type::I64, Type::F64, 9007199254740993ull, D(9007199254740992.0)},
    {Type::I64, Type::F64, 9007199254740995ull, D(9007199254740996.0)},
    {Type::U64, Type::F64, 0xFFFFFFFFFFFFFFFFull, D(18446744073709551616.0)},
    {Type::U64, Type::F64, 0x8000000000000401ull, D(9223372036854777856.0)},
    {Type::I32, Type::F64, I32(-5), D(-5.0)},
    // f64 <-> f32
    {Type::F64, Type::F32, D(1.0 + 0x1p-24), F(1.0f)},
    {Type::F64, Type::F32, D(1.0 + 0x1p-24 + 0x1p-50), F(1.0f + 0x1p-23f)},
    {Type::F64, Type::F32, D(1.0 + 3 * 0x1p-24), F(1.0f + 0x1p-22f)},
    {Type::F64, Type::F32, D(1e40), F(kInfF)},
    {Type::F64, Type::F32, D(-1e-50), 0x80000000},
    {Type::F64, Type::F32, D(0x1p-149), 1},
    {Type::F64, Type::F32, D(0x1p-150), 0},
    {Type::F64, Type::F32, D(0x1.8p-149), 2},
    {Type::F64, Type::F32, 0x7FF0000000000001ull, kNanF},
    {Type::F32, Type::F64, 0xFFC01234u, kNan},
    {Type::F32, Type::F64, F(0.1f), D(static_cast<double>(0.1f))},
    {Type::F32, Type::F64, F(-0.0f), 0x8000000000000000ull},
    // int -> int: by the source's signedness
    {Type::I32, Type::U64, I32(-1), 0xFFFFFFFFFFFFFFFFull},
    {Type::I32, Type::I64, I32(-2), I64(-2)},
    {Type::U32, Type::I64, 0xFFFFFFFF, 0xFFFFFFFF},
    {Type::U32, Type::U64, 0x80000000, 0x80000000},
    {Type::I64, Type::U32, 0x123456789ull, 0x23456789},
    {Type::U64, Type::I32, 0xFFFFFFFF80000000ull, 0x80000000},
    {Type::I32, Type::U32, I32(-1), 0xFFFFFFFF},
    {Type::U32, Type::I32, 0x80000000, 0x80000000},
    {Type::I64, Type::U64, I64(-3), I64(-3)},
    // bool
    {Type::Bool, Type::F32, 1, F(1.0f)},
    {Type::Bool, Type::F32, 0, 0},
    {Type::Bool, Type::F64, 1, D(1.0)},
    {Type::Bool, Type::I32, 1, 1},
    {Type::Bool, Type::U64, 1, 1},
    {Type::Bool, Type::I64, 0, 0},
    {Type::F32, Type::Bool, F(std::nanf("")), 1},
    {Type::F32, Type::Bool, F(-0.0f), 0},
    {Type::F32, Type::Bool, F(0.5f), 1},
    {Type::F64, Type::Bool, D(std::numeric_limits<double>::denorm_min()), 1},
    {Type::I64, Type::Bool, 0x100000000ull, 1},
    {Type::U32, Type::Bool, 0, 0},
    {Type::I32, Type::Bool, I32(-1), 1},
};

const std::vector<Row> kBitcasts = {
    {Type::F32, Type::U32, 0x7FC01234u, kNanF},
    {Type::F32, Type::I32, 0xFF800001u, kNanF},
    {Type::F32, Type::U32, F(-0.0f), 0x80000000},
    {Type::F32, Type::U32, F(1.5f), 0x3FC00000},
    {Type::U32, Type::F32, 1, 1},
    {Type::I32, Type::F32, 0x80000000, 0x80000000},
    {Type::U32, Type::I32, 0xFFFFFFFF, 0xFFFFFFFF},
    {Type::I32, Type::U32, 0x80000001, 0x80000001},
    {Type::F64, Type::I64, 0x7FF0000000000001ull, kNan},
    {Type::F64, Type::U64, 0xFFF8000000000123ull, kNan},
    {Type::F64, Type::U64, D(-2.0), 0xC000000000000000ull},
    {Type::I64, Type::F64, 0x8000000000000000ull, 0x8000000000000000ull},
    {Type::U64, Type::F64, 1, 1},
    {Type::U64, Type::I64, 0xFFFFFFFFFFFFFFFFull, 0xFFFFFFFFFFFFFFFFull},
};

void check(const std::vector<Row>& rows, bool bitcast) {
  std::map<std::pair<Type, Type>, std::vector<const Row*>> groups;
  for (const Row& r : rows) groups[{r.from, r.to}].push_back(&r);
  for (const auto& [types, group] : groups) {
    std::vector<std::uint64_t> in;
    for (const Row* r : group) in.push_back(r->in);
    auto got = eval_cast(types.first, types.second, in, bitcast);
    REQUIRE(got.size() == group.size());
    for (std::size_t i = 0; i < group.size(); ++i) {
      INFO((bitcast ? "bitcast." : "cast."), vyre::type_name(types.first), ".", vyre::type_name(types.second),
           "(0x", std::hex, group[i]->in, ")");
      CHECK(got[i] == group[i]->expected);
    }
  }
}

}  // namespace

TEST_CASE("casts: SPEC §2 edge cases") { check(kCasts, false); }

TEST_CASE("bitcasts keep bits, except that a float NaN reads as the canonical NaN") { check(kBitcasts, true); }

TEST_CASE("a NaN crossing f32 <-> f64 is canonical even when only bitcast observes it") {
  using namespace vyre::dsl;
  vyre::ProgramBuilder b;
  b.workgroup(1);
  auto x = b.buffer("x", vyre::Access::Read, Type::U32);
  auto o = b.buffer("o", vyre::Access::Output, Type::U64, 1);
  b.store(o, u32(0), bitcast(Type::U64, cast(Type::F64, bitcast(Type::F32, x[u32(0)]))));
  auto out = run(b.build(), {bytes_of(std::vector<std::uint32_t>{0x7FA00001u})});
  CHECK(values_of<std::uint64_t>(out[0])[0] == kNan);
}

TEST_CASE("int -> float conversion matches round-to-nearest-even on random values") {
  std::vector<std::uint64_t> in;
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 2000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    in.push_back(x >> (i % 40));
  }
  auto f = eval_cast(Type::U64, Type::F32, in);
  auto d = eval_cast(Type::U64, Type::F64, in);
  for (std::size_t i = 0; i < in.size(); ++i) {
    // Independent: round the exact value by hand (keep 24 / 53 significant bits, ties to even).
    auto round_to = [](std::uint64_t v, int bits) -> long double {
      if (v == 0) return 0;
      int width = 64 - __builtin_clzll(v);
      if (width <= bits) return static_cast<long double>(v);
      int drop = width - bits;
      std::uint64_t kept = v >> drop;
      std::uint64_t rem = v & ((std::uint64_t{1} << drop) - 1);
      std::uint64_t half = std::uint64_t{1} << (drop - 1);
      if (rem > half || (rem == half && (kept & 1))) ++kept;
      return std::ldexp(static_cast<long double>(kept), drop);
    };
    INFO("u64 0x", std::hex, in[i]);
    CHECK(f32_of(f[i]) == static_cast<float>(round_to(in[i], 24)));
    CHECK(f64_of(d[i]) == static_cast<double>(round_to(in[i], 53)));
  }
}
