// Float operators of the reference plugin: the correctly rounded ones bit-exact against quad
// precision (libquadmath, 113-bit significand: rounding a quad result once more is exact for
// f32 and f64 add/sub/mul/div/sqrt), the transcendentals within SPEC §5's ULP bounds of quad, and
// the hand-written special cases of SPEC §2 (NaN and signed-zero min/max, ties-to-even round,
// sign(±0), Annex F values, fma's single rounding).
#include <doctest/doctest.h>

#include <quadmath.h>
#include <xmmintrin.h>

#include <cfenv>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "refcpu_harness.hpp"
#include "vyre/ops.hpp"

using namespace refcpu_test;
using vyre::BinOp;
using vyre::Type;
using vyre::UnOp;

namespace {

constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::uint32_t kNanF = 0x7FC00000u;
constexpr std::uint64_t kNan = 0x7FF8000000000000ull;

std::vector<float> f32_edges() {
  return {0.0f, -0.0f, kInfF, -kInfF, std::bit_cast<float>(0x7FC00001u), 1.0f, -1.0f, 0.5f,
          1.0f / 3.0f, 3.14159265f, std::numeric_limits<float>::denorm_min(),
          std::bit_cast<float>(0x007FFFFFu), std::numeric_limits<float>::min(),
          std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), 2.0f, 10.0f,
          -0.75f, 88.7f, -103.9f, 1e-20f, 1e20f, 0.999999f, 1.000001f};
}
std::vector<double> f64_edges() {
  return {0.0, -0.0, kInf, -kInf, std::bit_cast<double>(0x7FF0000000000123ull), 1.0, -1.0, 0.5,
          1.0 / 3.0, 3.141592653589793, std::numeric_limits<double>::denorm_min(),
          std::bit_cast<double>(0x000FFFFFFFFFFFFFull), std::numeric_limits<double>::min(),
          std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(), 2.0, 10.0,
          -0.75, 709.7, -745.0, 1e-300, 1e300, 0.9999999999, 1.0000000001};
}

std::vector<std::uint64_t> bits(const std::vector<float>& v) {
  std::vector<std::uint64_t> out;
  for (float f : v) out.push_back(f32_bits(f));
  return out;
}
std::vector<std::uint64_t> bits(const std::vector<double>& v) {
  std::vector<std::uint64_t> out;
  for (double d : v) out.push_back(f64_bits(d));
  return out;
}

std::uint64_t canon32(float f) { return std::isnan(f) ? kNanF : f32_bits(f); }
std::uint64_t canon64(double d) { return std::isnan(d) ? kNan : f64_bits(d); }

std::vector<float> random_f32(std::mt19937_64& rng, std::size_t n, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(i % 4 == 0 ? std::bit_cast<float>(static_cast<std::uint32_t>(rng())) : dist(rng));
  return out;
}
std::vector<double> random_f64(std::mt19937_64& rng, std::size_t n, double lo, double hi) {
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(i % 4 == 0 ? std::bit_cast<double>(rng()) : dist(rng));
  return out;
}

using Quad = __float128;

Quad quad_bin(BinOp op, Quad a, Quad b) {
  switch (op) {
    case BinOp::Add: return a + b;
    case BinOp::Sub: return a - b;
    case BinOp::Mul: return a * b;
    default: return a / b;
  }
}

}  // namespace

TEST_CASE("f32/f64 add, sub, mul, div are correctly rounded (bit-exact against quad)") {
  std::mt19937_64 rng(11);
  for (BinOp op : {BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div}) {
    auto xs = f32_edges();
    auto more = random_f32(rng, 400, -1e6f, 1e6f);
    xs.insert(xs.end(), more.begin(), more.end());
    std::vector<float> a, b;
    for (std::size_t i = 0; i < xs.size(); ++i)
      for (std::size_t j = 0; j < 24; ++j) {
        a.push_back(xs[i]);
        b.push_back(xs[(i * 7 + j * 13) % xs.size()]);
      }
    auto got = eval_binary(op, Type::F32, bits(a), bits(b));
    for (std::size_t i = 0; i < a.size(); ++i) {
      auto expected = static_cast<float>(quad_bin(op, a[i], b[i]));
      INFO("bin.", vyre::bin_op_name(op), ".f32(", a[i], ", ", b[i], ")");
      REQUIRE(got[i] == canon32(expected));
    }

    auto ds = f64_edges();
    auto dmore = random_f64(rng, 400, -1e12, 1e12);
    ds.insert(ds.end(), dmore.begin(), dmore.end());
    std::vector<double> c, d;
    for (std::size_t i = 0; i < ds.size(); ++i)
      for (std::size_t j = 0; j < 24; ++j) {
        c.push_back(ds[i]);
        d.push_back(ds[(i * 5 + j * 11) % ds.size()]);
      }
    auto got64 = eval_binary(op, Type::F64, bits(c), bits(d));
    for (std::size_t i = 0; i < c.size(); ++i) {
      auto expected = static_cast<double>(quad_bin(op, c[i], d[i]));
      INFO("bin.", vyre::bin_op_name(op), ".f64(", c[i], ", ", d[i], ")");
      REQUIRE(got64[i] == canon64(expected));
    }
  }
}

TEST_CASE("subnormals are kept, never flushed") {
  float tiny = std::numeric_limits<float>::denorm_min();
  auto got = eval_binary(BinOp::Add, Type::F32, bits(std::vector<float>{tiny, 0x1p-126f}),
                         bits(std::vector<float>{tiny, -0x1p-127f}));
  CHECK(got[0] == 2u);            // 2 * 2^-149
  CHECK(got[1] == 0x00400000u);   // 2^-127, a subnormal
  auto mul = eval_binary(BinOp::Mul, Type::F64, bits(std::vector<double>{0x1p-1022}),
                         bits(std::vector<double>{0.5}));
  CHECK(mul[0] == 0x0008000000000000ull);
}

TEST_CASE("float min/max: NaN yields the other operand; -0 < +0") {
  float nan = std::bit_cast<float>(0x7FC01234u);
  std::vector<float> a = {nan, 1.0f, nan, -0.0f, 0.0f, -kInfF, 2.0f};
  std::vector<float> b = {1.0f, nan, nan, 0.0f, -0.0f, 3.0f, -2.0f};
  auto mn = eval_binary(BinOp::Min, Type::F32, bits(a), bits(b));
  auto mx = eval_binary(BinOp::Max, Type::F32, bits(a), bits(b));
  std::vector<std::uint64_t> min_expected = {f32_bits(1.0f), f32_bits(1.0f), kNanF, 0x80000000u, 0x80000000u,
                                             f32_bits(-kInfF), f32_bits(-2.0f)};
  std::vector<std::uint64_t> max_expected = {f32_bits(1.0f), f32_bits(1.0f), kNanF, 0u, 0u, f32_bits(3.0f),
                                             f32_bits(2.0f)};
  CHECK(mn == min_expected);
  CHECK(mx == max_expected);
  std::vector<double> c = {-0.0, 0.0, std::nan("")};
  std::vector<double> d = {0.0, -0.0, -5.0};
  CHECK(eval_binary(BinOp::Min, Type::F64, bits(c), bits(d)) ==
        std::vector<std::uint64_t>{0x8000000000000000ull, 0x8000000000000000ull, f64_bits(-5.0)});
  CHECK(eval_binary(BinOp::Max, Type::F64, bits(c), bits(d)) ==
        std::vector<std::uint64_t>{0, 0, f64_bits(-5.0)});
}

TEST_CASE("float comparisons: NaN compares false except ne; -0 == +0") {
  float nan = std::nanf("");
  std::vector<float> a = {nan, 1.0f, -0.0f};
  std::vector<float> b = {nan, nan, 0.0f};
  CHECK(eval_binary(BinOp::Eq, Type::F32, bits(a), bits(b)) == std::vector<std::uint64_t>{0, 0, 1});
  CHECK(eval_binary(BinOp::Ne, Type::F32, bits(a), bits(b)) == std::vector<std::uint64_t>{1, 1, 0});
  CHECK(eval_binary(BinOp::Lt, Type::F32, bits(a), bits(b)) == std::vector<std::uint64_t>{0, 0, 0});
  CHECK(eval_binary(BinOp::Le, Type::F32, bits(a), bits(b)) == std::vector<std::uint64_t>{0, 0, 1});
  CHECK(eval_binary(BinOp::Gt, Type::F64, bits(std::vector<double>{std::nan(""), 2.0}),
                    bits(std::vector<double>{1.0, 1.0})) == std::vector<std::uint64_t>{0, 1});
  CHECK(eval_binary(BinOp::Ge, Type::F64, bits(std::vector<double>{-0.0}), bits(std::vector<double>{0.0})) ==
        std::vector<std::uint64_t>{1});
}

TEST_CASE("NaN results are stored as the canonical NaN") {
  std::vector<float> a = {kInfF, 0.0f, std::bit_cast<float>(0xFFC00001u)};
  std::vector<float> b = {-kInfF, 0.0f, 1.0f};
  auto sum = eval_binary(BinOp::Add, Type::F32, bits(a), bits(b));
  auto quot = eval_binary(BinOp::Div, Type::F32, bits(a), bits(b));
  CHECK(sum[0] == kNanF);
  CHECK(quot[1] == kNanF);
  CHECK(sum[2] == kNanF);  // a negative NaN with a payload stays NaN and is canonicalised
  auto neg = eval_unary(UnOp::Neg, Type::F64, {0x7FF0000000000001ull});
  CHECK(neg[0] == kNan);
}

TEST_CASE("float rounding functions, sign, abs, neg and classification") {
  std::vector<float> a = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 1.7f, -1.7f, -0.0f, 8388609.0f, kInfF};
  auto round = eval_unary(UnOp::Round, Type::F32, bits(a));
  auto floor = eval_unary(UnOp::Floor, Type::F32, bits(a));
  auto ceil = eval_unary(UnOp::Ceil, Type::F32, bits(a));
  auto trunc = eval_unary(UnOp::Trunc, Type::F32, bits(a));
  CHECK(round == bits(std::vector<float>{0.0f, 2.0f, 2.0f, -0.0f, -2.0f, -2.0f, 2.0f, -2.0f, -0.0f, 8388609.0f, kInfF}));
  CHECK(floor == bits(std::vector<float>{0.0f, 1.0f, 2.0f, -1.0f, -2.0f, -3.0f, 1.0f, -2.0f, -0.0f, 8388609.0f, kInfF}));
  CHECK(ceil == bits(std::vector<float>{1.0f, 2.0f, 3.0f, -0.0f, -1.0f, -2.0f, 2.0f, -1.0f, -0.0f, 8388609.0f, kInfF}));
  CHECK(trunc == bits(std::vector<float>{0.0f, 1.0f, 2.0f, -0.0f, -1.0f, -2.0f, 1.0f, -1.0f, -0.0f, 8388609.0f, kInfF}));
  auto round64 = eval_unary(UnOp::Round, Type::F64, bits(std::vector<double>{2.5, 3.5, -4.5, 4503599627370497.0}));
  CHECK(round64 == bits(std::vector<double>{2.0, 4.0, -4.0, 4503599627370497.0}));

  std::vector<float> s = {-0.0f, 0.0f, std::nanf(""), -3.0f, kInfF, std::numeric_limits<float>::denorm_min()};
  CHECK(eval_unary(UnOp::Sign, Type::F32, bits(s)) ==
        std::vector<std::uint64_t>{0x80000000u, 0u, kNanF, f32_bits(-1.0f), f32_bits(1.0f), f32_bits(1.0f)});
  CHECK(eval_unary(UnOp::Abs, Type::F32, bits(s)) ==
        std::vector<std::uint64_t>{0u, 0u, kNanF, f32_bits(3.0f), f32_bits(kInfF), 1u});
  CHECK(eval_unary(UnOp::Neg, Type::F32, bits(std::vector<float>{0.0f, -2.0f})) ==
        std::vector<std::uint64_t>{0x80000000u, f32_bits(2.0f)});
  CHECK(eval_unary(UnOp::Sign, Type::F64, bits(std::vector<double>{-0.0, -7.0})) ==
        std::vector<std::uint64_t>{0x8000000000000000ull, f64_bits(-1.0)});

  std::vector<float> c = {std::nanf(""), kInfF, -kInfF, 0.0f, std::numeric_limits<float>::max()};
  CHECK(eval_unary(UnOp::IsNan, Type::F32, bits(c)) == std::vector<std::uint64_t>{1, 0, 0, 0, 0});
  CHECK(eval_unary(UnOp::IsInf, Type::F32, bits(c)) == std::vector<std::uint64_t>{0, 1, 1, 0, 0});
  CHECK(eval_unary(UnOp::IsFinite, Type::F32, bits(c)) == std::vector<std::uint64_t>{0, 0, 0, 1, 1});
  CHECK(eval_unary(UnOp::IsNan, Type::F64, bits(std::vector<double>{std::nan(""), 1.0})) ==
        std::vector<std::uint64_t>{1, 0});
}

TEST_CASE("sqrt and reciprocal are correctly rounded; inverse_sqrt within 2 ULP") {
  std::mt19937_64 rng(5);
  auto xs = f32_edges();
  auto more = random_f32(rng, 2000, 0.0f, 1e6f);
  xs.insert(xs.end(), more.begin(), more.end());
  auto sq = eval_unary(UnOp::Sqrt, Type::F32, bits(xs));
  auto rc = eval_unary(UnOp::Reciprocal, Type::F32, bits(xs));
  auto rs = eval_unary(UnOp::InverseSqrt, Type::F32, bits(xs));
  for (std::size_t i = 0; i < xs.size(); ++i) {
    INFO("x = ", xs[i]);
    CHECK(sq[i] == canon32(static_cast<float>(sqrtq(xs[i]))));
    CHECK(rc[i] == canon32(static_cast<float>(1 / static_cast<Quad>(xs[i]))));
    CHECK(ulp_distance_f32(f32_of(rs[i]), static_cast<float>(1 / sqrtq(xs[i]))) <= 2);
  }
  auto ds = f64_edges();
  auto dmore = random_f64(rng, 2000, 0.0, 1e12);
  ds.insert(ds.end(), dmore.begin(), dmore.end());
  auto sq64 = eval_unary(UnOp::Sqrt, Type::F64, bits(ds));
  auto rc64 = eval_unary(UnOp::Reciprocal, Type::F64, bits(ds));
  auto rs64 = eval_unary(UnOp::InverseSqrt, Type::F64, bits(ds));
  for (std::size_t i = 0; i < ds.size(); ++i) {
    INFO("x = ", ds[i]);
    CHECK(sq64[i] == canon64(static_cast<double>(sqrtq(ds[i]))));
    CHECK(rc64[i] == canon64(static_cast<double>(1 / static_cast<Quad>(ds[i]))));
    CHECK(ulp_distance_f64(f64_of(rs64[i]), static_cast<double>(1 / sqrtq(ds[i]))) <= 2);
  }
  // Special values
  CHECK(eval_unary(UnOp::Sqrt, Type::F32, bits(std::vector<float>{-0.0f, -1.0f, kInfF})) ==
        std::vector<std::uint64_t>{0x80000000u, kNanF, f32_bits(kInfF)});
  CHECK(eval_unary(UnOp::InverseSqrt, Type::F32, bits(std::vector<float>{0.0f, -0.0f, 4.0f, kInfF, -1.0f})) ==
        std::vector<std::uint64_t>{f32_bits(kInfF), f32_bits(-kInfF), f32_bits(0.5f), 0u, kNanF});
  CHECK(eval_unary(UnOp::Reciprocal, Type::F64, bits(std::vector<double>{0.0, -0.0, -kInf})) ==
        std::vector<std::uint64_t>{f64_bits(kInf), f64_bits(-kInf), 0x8000000000000000ull});
}

namespace {

struct Transcendental {
  UnOp op;
  std::function<Quad(Quad)> ref;
  std::uint32_t ulp;
  double lo, hi;  // range for random arguments
};

const std::vector<Transcendental>& transcendentals() {
  static const std::vector<Transcendental> list = {
      {UnOp::Exp, [](Quad x) { return expq(x); }, 2, -100, 100},
      {UnOp::Exp2, [](Quad x) { return exp2q(x); }, 2, -140, 140},
      {UnOp::Log, [](Quad x) { return logq(x); }, 2, 0, 1e30},
      {UnOp::Log2, [](Quad x) { return log2q(x); }, 2, 0, 1e30},
      {UnOp::Sin, [](Quad x) { return sinq(x); }, 4, -1e4, 1e4},
      {UnOp::Cos, [](Quad x) { return cosq(x); }, 4, -1e4, 1e4},
      {UnOp::Tan, [](Quad x) { return tanq(x); }, 5, -1e4, 1e4},
      {UnOp::Asin, [](Quad x) { return asinq(x); }, 4, -1, 1},
      {UnOp::Acos, [](Quad x) { return acosq(x); }, 4, -1, 1},
      {UnOp::Atan, [](Quad x) { return atanq(x); }, 5, -1e3, 1e3},
      {UnOp::Sinh, [](Quad x) { return sinhq(x); }, 4, -90, 90},
      {UnOp::Cosh, [](Quad x) { return coshq(x); }, 4, -90, 90},
      {UnOp::Tanh, [](Quad x) { return tanhq(x); }, 4, -20, 20},
  };
  return list;
}

}  // namespace

TEST_CASE("transcendentals are within SPEC §5's ULP bounds of quad precision") {
  std::mt19937_64 rng(99);
  for (const Transcendental& t : transcendentals()) {
    auto xs = f32_edges();
    auto more = random_f32(rng, 1500, static_cast<float>(t.lo), static_cast<float>(t.hi));
    xs.insert(xs.end(), more.begin(), more.end());
    auto got = eval_unary(t.op, Type::F32, bits(xs));
    std::uint64_t worst = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      float expected = static_cast<float>(t.ref(xs[i]));
      std::uint64_t d = ulp_distance_f32(f32_of(got[i]), expected);
      INFO("un.", vyre::un_op_name(t.op), ".f32(", xs[i], ") = ", f32_of(got[i]), ", quad says ", expected);
      CHECK(d <= t.ulp);
      if (std::isnan(expected)) CHECK(got[i] == kNanF);
      worst = std::max(worst, d);
    }
    MESSAGE("un.", vyre::un_op_name(t.op), ".f32 worst ULP ", worst);

    auto ds = f64_edges();
    auto dmore = random_f64(rng, 1500, t.lo, t.hi);
    ds.insert(ds.end(), dmore.begin(), dmore.end());
    auto got64 = eval_unary(t.op, Type::F64, bits(ds));
    std::uint64_t worst64 = 0;
    for (std::size_t i = 0; i < ds.size(); ++i) {
      double expected = static_cast<double>(t.ref(ds[i]));
      std::uint64_t d = ulp_distance_f64(f64_of(got64[i]), expected);
      INFO("un.", vyre::un_op_name(t.op), ".f64(", ds[i], ") = ", f64_of(got64[i]), ", quad says ", expected);
      CHECK(d <= t.ulp);
      worst64 = std::max(worst64, d);
    }
    MESSAGE("un.", vyre::un_op_name(t.op), ".f64 worst ULP ", worst64);
  }
}

TEST_CASE("transcendentals: C99 Annex F special values are exact") {
  struct Case {
    UnOp op;
    float x;
    std::uint32_t expected;
  };
  const std::vector<Case> cases = {
      {UnOp::Exp, -kInfF, 0u}, {UnOp::Exp, kInfF, f32_bits(kInfF)}, {UnOp::Exp, 0.0f, f32_bits(1.0f)},
      {UnOp::Exp, -0.0f, f32_bits(1.0f)}, {UnOp::Exp2, -kInfF, 0u}, {UnOp::Exp2, 3.0f, f32_bits(8.0f)},
      {UnOp::Log, 0.0f, f32_bits(-kInfF)}, {UnOp::Log, -0.0f, f32_bits(-kInfF)}, {UnOp::Log, 1.0f, 0u},
      {UnOp::Log, -1.0f, kNanF}, {UnOp::Log, kInfF, f32_bits(kInfF)}, {UnOp::Log2, 8.0f, f32_bits(3.0f)},
      {UnOp::Log2, 0.0f, f32_bits(-kInfF)}, {UnOp::Sin, -0.0f, 0x80000000u}, {UnOp::Sin, kInfF, kNanF},
      {UnOp::Cos, 0.0f, f32_bits(1.0f)}, {UnOp::Cos, -kInfF, kNanF}, {UnOp::Tan, -0.0f, 0x80000000u},
      {UnOp::Asin, 2.0f, kNanF}, {UnOp::Asin, -0.0f, 0x80000000u}, {UnOp::Acos, 1.0f, 0u},
      {UnOp::Acos, -2.0f, kNanF}, {UnOp::Atan, -0.0f, 0x80000000u},
      {UnOp::Atan, kInfF, f32_bits(static_cast<float>(M_PI / 2))},
      {UnOp::Sinh, -0.0f, 0x80000000u}, {UnOp::Sinh, -kInfF, f32_bits(-kInfF)},
      {UnOp::Cosh, -kInfF, f32_bits(kInfF)}, {UnOp::Cosh, 0.0f, f32_bits(1.0f)},
      {UnOp::Tanh, kInfF, f32_bits(1.0f)}, {UnOp::Tanh, -0.0f, 0x80000000u}, {UnOp::Exp, 89.0f, f32_bits(kInfF)},
      {UnOp::Exp, std::nanf(""), kNanF},
  };
  for (const Case& c : cases) {
    auto got = eval_unary(c.op, Type::F32, {f32_bits(c.x)});
    INFO("un.", vyre::un_op_name(c.op), ".f32(", c.x, ")");
    CHECK(got[0] == c.expected);
    auto got64 = eval_unary(c.op, Type::F64, {f64_bits(c.x)});
    auto expected64 = c.expected == kNanF ? kNan : f64_bits(static_cast<double>(f32_of(c.expected)));
    if (c.op == UnOp::Atan && c.x == kInfF) expected64 = f64_bits(M_PI / 2);
    if (c.op == UnOp::Exp && c.x == 89.0f) continue;  // finite in f64
    CHECK(got64[0] == expected64);
  }
}

TEST_CASE("fma rounds once") {
  using namespace vyre::dsl;
  vyre::ProgramBuilder b;
  b.workgroup(1);
  auto x = b.buffer("x", vyre::Access::Read, Type::F32);
  auto y = b.buffer("y", vyre::Access::Read, Type::F64);
  auto o = b.buffer("o", vyre::Access::Output, Type::F32, 2);
  auto o64 = b.buffer("o64", vyre::Access::Output, Type::F64, 2);
  b.store(o, u32(0), fma(x[u32(0)], x[u32(1)], x[u32(2)]));
  b.store(o, u32(1), x[u32(0)] * x[u32(1)] + x[u32(2)]);
  b.store(o64, u32(0), fma(y[u32(0)], y[u32(1)], y[u32(2)]));
  b.store(o64, u32(1), y[u32(0)] * y[u32(1)] + y[u32(2)]);
  // (1 + 2^-23)(1 - 2^-24) - 1 = 2^-24 - 2^-47 exactly; unfused, the product rounds to 1 first.
  std::vector<float> xs = {std::bit_cast<float>(0x3F800001u), std::bit_cast<float>(0x3F7FFFFFu), -1.0f};
  std::vector<double> ys = {1 + 0x1p-52, 1 - 0x1p-53, -1.0};
  auto out = run(b.build(), {bytes_of(xs), bytes_of(ys)}, elements(1));
  auto f = values_of<std::uint32_t>(out[0]);
  auto d = values_of<double>(out[1]);
  CHECK(f[0] == 0x337FFFFEu);  // 2^-24 - 2^-47 = (2 - 2^-22) * 2^-25
  CHECK(f[1] == 0u);
  CHECK(d[0] == 0x1p-53 - 0x1p-105);
  CHECK(d[1] == 0.0);
}

TEST_CASE("results do not depend on the host's floating-point environment, which is restored") {
  // Round upward, flush subnormals to zero and treat subnormal inputs as zero on this thread.
  std::fenv_t saved;
  std::fegetenv(&saved);
  std::fesetround(FE_UPWARD);
  _mm_setcsr(_mm_getcsr() | 0x8040u);  // FTZ | DAZ
  const unsigned csr_before = _mm_getcsr();
  std::vector<float> tiny = {std::numeric_limits<float>::denorm_min(), 1.0f, 16777217.0f};
  auto sum = eval_binary(BinOp::Add, Type::F32, bits(tiny), bits(std::vector<float>{std::numeric_limits<float>::denorm_min(), 0x1p-30f, 1.0f}));
  auto conv = eval_cast(Type::U32, Type::F32, {16777217u, 16777219u});
  const unsigned csr_after = _mm_getcsr();
  const int round_after = std::fegetround();
  std::fesetenv(&saved);
  CHECK(sum[0] == 2u);                       // no flush to zero
  CHECK(sum[1] == f32_bits(1.0f));           // 1 + 2^-30 rounds to nearest, not up
  CHECK(sum[2] == f32_bits(16777216.0f));    // 16777216 + 1 ties to even (upward: 16777218)
  CHECK(conv[0] == f32_bits(16777216.0f));   // ties to even, not upward
  CHECK(conv[1] == f32_bits(16777220.0f));
  CHECK(csr_after == csr_before);            // the host's environment is back
  CHECK(round_after == FE_UPWARD);
}
