// Subgroups (SPEC §2 "Subgroups"; docs/SEMANTICS.md "Subgroups"): 32 lanes of consecutive local
// linear ids; ballot, shuffle (lane % 32), reductions with the fixed butterfly order for floats,
// and VYRE_ERR_EXECUTION when a subgroup op runs without all 32 lanes.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "refcpu_harness.hpp"

using namespace refcpu_test;
using namespace vyre::dsl;
using vyre::Access;
using vyre::ReduceOp;
using vyre::Type;

namespace {

// out[i] = make(x[i]) for a 1-D workgroup of 64 over `groups` workgroups.
template <class In, class Out>
std::vector<Out> per_lane(Type in_t, Type out_t, const std::vector<In>& xs,
                          const std::function<vyre::Expr(vyre::Expr)>& make, std::uint32_t wg = 64) {
  vyre::ProgramBuilder b;
  b.workgroup(wg);
  auto x = b.buffer("x", Access::Read, in_t);
  auto out = b.buffer("out", Access::Output, out_t, static_cast<std::uint32_t>(xs.size()));
  auto i = b.let("i", invocation_id(0));
  b.store(out, i, make(x[i]));
  auto result = run(b.build(), {bytes_of(xs)}, grid(static_cast<std::uint32_t>(xs.size() / wg)));
  return values_of<Out>(result[0]);
}

// SPEC's butterfly, written out independently: for offset 16..1: v[l] = op(v[l], v[l ^ offset]).
template <class T, class Op>
std::array<T, 32> butterfly(std::array<T, 32> v, Op op) {
  for (unsigned offset = 16; offset > 0; offset /= 2) {
    std::array<T, 32> next{};
    for (unsigned l = 0; l < 32; ++l) next[l] = op(v[l], v[l ^ offset]);
    v = next;
  }
  return v;
}

float fmin_rule(float a, float b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

}  // namespace

TEST_CASE("ballot: bit l set for each lane l of the subgroup whose condition holds") {
  std::vector<std::uint32_t> xs(256);
  std::mt19937 rng(1);
  for (auto& x : xs) x = rng();
  auto got = per_lane<std::uint32_t, std::uint32_t>(Type::U32, Type::U32, xs,
                                                    [](vyre::Expr x) { return ballot(eq(x % u32(3), u32(0))); });
  for (std::size_t i = 0; i < xs.size(); ++i) {
    std::uint32_t mask = 0;
    std::size_t base = i - i % 32;
    for (unsigned l = 0; l < 32; ++l)
      if (xs[base + l] % 3 == 0) mask |= 1u << l;
    CHECK(got[i] == mask);
  }
}

TEST_CASE("shuffle reads the value of lane (lane % 32) of the same subgroup") {
  std::vector<double> xs(128);
  for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<double>(i) * 1.5 - 7;
  auto got = per_lane<double, double>(Type::F64, Type::F64, xs, [](vyre::Expr x) {
    return shuffle(x, subgroup_lane() * u32(7) + u32(35));
  });
  for (std::size_t i = 0; i < xs.size(); ++i) {
    std::size_t lane = i % 32;
    CHECK(got[i] == xs[i - lane + (lane * 7 + 35) % 32]);
  }
  std::vector<std::int64_t> ys(64);
  for (std::size_t i = 0; i < ys.size(); ++i) ys[i] = -static_cast<std::int64_t>(i) << 40;
  auto got64 = per_lane<std::int64_t, std::int64_t>(Type::I64, Type::I64, ys, [](vyre::Expr x) {
    return shuffle(x, u32(31) - subgroup_lane());
  });
  for (std::size_t i = 0; i < ys.size(); ++i) CHECK(got64[i] == ys[i - i % 32 + 31 - i % 32]);
}

TEST_CASE("integer reductions over the 32 lanes") {
  std::vector<std::int32_t> xs(128);
  std::mt19937 rng(2);
  for (auto& x : xs) x = static_cast<std::int32_t>(rng() % 2001) - 1000;
  struct Case {
    ReduceOp op;
    std::function<std::int32_t(std::int32_t, std::int32_t)> f;
  };
  const std::vector<Case> cases = {
      {ReduceOp::Add, [](std::int32_t a, std::int32_t b) { return a + b; }},
      {ReduceOp::Mul, [](std::int32_t a, std::int32_t b) {
         return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b)); }},
      {ReduceOp::Min, [](std::int32_t a, std::int32_t b) { return std::min(a, b); }},
      {ReduceOp::Max, [](std::int32_t a, std::int32_t b) { return std::max(a, b); }},
      {ReduceOp::And, [](std::int32_t a, std::int32_t b) { return a & b; }},
      {ReduceOp::Or, [](std::int32_t a, std::int32_t b) { return a | b; }},
      {ReduceOp::Xor, [](std::int32_t a, std::int32_t b) { return a ^ b; }},
  };
  for (const Case& c : cases) {
    auto got = per_lane<std::int32_t, std::int32_t>(Type::I32, Type::I32, xs,
                                                    [&](vyre::Expr x) { return reduce(c.op, x); });
    for (std::size_t i = 0; i < xs.size(); ++i) {
      std::size_t base = i - i % 32;
      std::int32_t acc = xs[base];
      for (unsigned l = 1; l < 32; ++l) acc = c.f(acc, xs[base + l]);  // order does not matter
      INFO("reduce.", vyre::reduce_op_name(c.op), ".i32 lane ", i);
      CHECK(got[i] == acc);
    }
  }
  std::vector<std::uint64_t> us(64);
  for (std::size_t i = 0; i < us.size(); ++i) us[i] = 0xFFFFFFFFull * (i + 1);
  auto sum = per_lane<std::uint64_t, std::uint64_t>(Type::U64, Type::U64, us,
                                                    [](vyre::Expr x) { return reduce(ReduceOp::Add, x); });
  CHECK(sum[0] == 0xFFFFFFFFull * (32 * 33 / 2));
  auto umin = per_lane<std::uint64_t, std::uint64_t>(Type::U64, Type::U64, us,
                                                     [](vyre::Expr x) { return reduce(ReduceOp::Min, x); });
  CHECK(umin[40] == 0xFFFFFFFFull * 33);
}

TEST_CASE("float reductions use the fixed butterfly order, bit-exactly") {
  std::vector<float> xs(256);
  std::mt19937 rng(3);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    float mag = std::ldexp(static_cast<float>(rng() % 100000) / 1000.0f, static_cast<int>(rng() % 50) - 20);
    xs[i] = (rng() % 2) ? mag : -mag;
  }
  auto add = per_lane<float, float>(Type::F32, Type::F32, xs, [](vyre::Expr x) { return reduce(ReduceOp::Add, x); });
  auto mul = per_lane<float, float>(Type::F32, Type::F32, xs, [](vyre::Expr x) { return reduce(ReduceOp::Mul, x); });
  bool order_matters = false;
  for (std::size_t base = 0; base < xs.size(); base += 32) {
    std::array<float, 32> v{};
    std::copy(xs.begin() + base, xs.begin() + base + 32, v.begin());
    auto sums = butterfly(v, [](float a, float b) { return a + b; });
    auto prods = butterfly(v, [](float a, float b) { return a * b; });
    float sequential = 0;
    for (float f : v) sequential += f;
    order_matters |= sequential != sums[0];
    for (unsigned l = 0; l < 32; ++l) {
      CHECK(f32_bits(add[base + l]) == f32_bits(sums[l]));
      CHECK(f32_bits(mul[base + l]) == f32_bits(prods[l]));
    }
  }
  CHECK(order_matters);  // the data distinguishes the butterfly from a left-to-right sum

  std::vector<float> special(64, 1.0f);
  special[0] = std::nanf("");
  special[1] = -0.0f;
  special[2] = 0.0f;
  special[32] = std::nanf("");
  for (unsigned l = 33; l < 64; ++l) special[l] = std::nanf("");
  auto mn = per_lane<float, std::uint32_t>(Type::F32, Type::F32, special,
                                           [](vyre::Expr x) { return reduce(ReduceOp::Min, x); });
  auto mx = per_lane<float, std::uint32_t>(Type::F32, Type::F32, special,
                                           [](vyre::Expr x) { return reduce(ReduceOp::Max, x); });
  std::array<float, 32> v{};
  std::copy(special.begin(), special.begin() + 32, v.begin());
  CHECK(mn[0] == f32_bits(butterfly(v, fmin_rule)[0]));
  CHECK(mn[0] == 0x80000000u);  // NaN skipped, -0 below +0
  CHECK(mx[5] == f32_bits(1.0f));
  CHECK(mn[40] == 0x7FC00000u);  // all NaN

  std::vector<double> ds(64);
  for (std::size_t i = 0; i < ds.size(); ++i) ds[i] = (i % 2 ? 1e16 : 1.0) * (i % 3 ? 1 : -1);
  auto dsum = per_lane<double, double>(Type::F64, Type::F64, ds, [](vyre::Expr x) { return reduce(ReduceOp::Add, x); });
  std::array<double, 32> dv{};
  std::copy(ds.begin(), ds.begin() + 32, dv.begin());
  CHECK(f64_bits(dsum[7]) == f64_bits(butterfly(dv, [](double a, double b) { return a + b; })[7]));
}

TEST_CASE("subgroups follow local linear ids in a 2-D workgroup") {
  vyre::ProgramBuilder b;
  b.workgroup(8, 8, 1);
  auto out = b.buffer("out", Access::Output, Type::U32, 64);
  auto lin = b.let("lin", local_id(0) + local_id(1) * u32(8));
  b.store(out, lin, reduce(ReduceOp::Add, lin));
  auto got = values_of<std::uint32_t>(run(b.build(), {}, grid(1))[0]);
  for (std::uint32_t i = 0; i < 64; ++i) CHECK(got[i] == (i < 32 ? 496u : 1520u));  // 0+..+31, 32+..+63
}

TEST_CASE("a subgroup op without all 32 lanes active is VYRE_ERR_EXECUTION") {
  for (int variant = 0; variant < 3; ++variant) {
    vyre::ProgramBuilder b;
    b.workgroup(64);
    auto out = b.buffer("out", Access::Output, Type::U32, 64);
    auto lane = b.let("lane", subgroup_lane());
    if (variant == 0) b.if_(lt(lane, u32(16)), [&] { b.store(out, invocation_id(0), reduce(ReduceOp::Add, lane)); });
    if (variant == 1) {
      b.if_(eq(invocation_id(0), u32(40)), [&] { b.ret(); });
      b.store(out, invocation_id(0), ballot(boolean(true)));
    }
    if (variant == 2) b.loop("k", u32(0), lane % u32(2) + u32(1), [&](vyre::Expr k) {
      b.store(out, invocation_id(0), shuffle(k, u32(0)));
    });
    std::string message;
    INFO("variant ", variant);
    CHECK(run_status(b.build(), {}, grid(1), &message) == VYRE_ERR_EXECUTION);
    CHECK(message.find("subgroup") != std::string::npos);
    CHECK(message.find("body[") != std::string::npos);
    CHECK(message.find("Fix: ") != std::string::npos);
  }
  // Whole subgroups taking different branches is fine.
  vyre::ProgramBuilder ok;
  ok.workgroup(64);
  auto out = ok.buffer("out", Access::Output, Type::U32, 64);
  ok.if_(lt(local_id(0), u32(32)), [&] { ok.store(out, local_id(0), reduce(ReduceOp::Add, u32(1))); },
         [&] { ok.store(out, local_id(0), reduce(ReduceOp::Add, u32(2))); });
  auto got = values_of<std::uint32_t>(run(ok.build(), {}, grid(1))[0]);
  CHECK(got[0] == 32);
  CHECK(got[63] == 64);
}
