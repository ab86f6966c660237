// Loads, stores and atomics (SPEC §2 "Types", "Out of bounds", "Atomics"): narrow storage widens
// exactly and narrows by truncation or round-to-nearest-even; bool words; canonical NaN on every
// float store; out-of-bounds loads read zero, stores and atomics change nothing; i32 indices below
// zero are out of bounds; atomics return the old value.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "refcpu_harness.hpp"

using namespace refcpu_test;
using namespace vyre::dsl;
using vyre::Access;
using vyre::AtomicOp;
using vyre::Type;

namespace {

// out[i] = in[i] between buffers of the given storage types (their value types must match).
std::vector<std::uint64_t> copy_through(Type in, Type out, const std::vector<std::uint64_t>& bits) {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto x = b.buffer("x", Access::Read, in);
  auto o = b.buffer("o", Access::Output, out, static_cast<std::uint32_t>(bits.size()));
  auto i = b.let("i", invocation_id(0));
  b.store(o, i, x[i]);
  auto result = run(b.build(), {bytes_of_bits(in, bits)});
  return bits_of_bytes(out, result.at(0));
}

// The f16 value of bits h, computed from the IEEE formula (independent of the plugin's code).
double f16_value(std::uint16_t h) {
  int sign = (h >> 15) ? -1 : 1;
  int e = (h >> 10) & 0x1F;
  int m = h & 0x3FF;
  if (e == 0x1F) return m ? std::nan("") : sign * std::numeric_limits<double>::infinity();
  if (e == 0) return sign * std::ldexp(m, -24);
  return sign * std::ldexp(1024 + m, e - 25);
}

// Round x to f16 by searching the ordered table of finite f16 values (ties to the even pattern).
std::uint16_t f16_nearest(float x, const std::vector<std::pair<double, std::uint16_t>>& table) {
  if (std::isnan(x)) return 0x7E00;
  double v = x;
  double mag = std::fabs(v);
  std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (mag >= 65520.0) return sign | 0x7C00;
  auto it = std::lower_bound(table.begin(), table.end(), std::make_pair(mag, std::uint16_t{0}));
  if (it == table.end()) return sign | 0x7BFF;  // (65504, 65520): below the halfway point to inf
  if (it != table.end() && it->first == mag) return sign | it->second;
  auto above = *it;
  auto below = *(it - 1);
  double da = above.first - mag, db = mag - below.first;
  if (da < db) return sign | above.second;
  if (db < da) return sign | below.second;
  return sign | ((above.second & 1) ? below.second : above.second);
}

}  // namespace

TEST_CASE("narrow integer loads widen exactly (sign-extended for i8/i16)") {
  CHECK(copy_through(Type::U8, Type::U32, {0, 255, 128}) == std::vector<std::uint64_t>{0, 255, 128});
  CHECK(copy_through(Type::I8, Type::I32, {0xFF, 0x80, 0x7F}) ==
        std::vector<std::uint64_t>{0xFFFFFFFF, 0xFFFFFF80, 0x7F});
  CHECK(copy_through(Type::U16, Type::U32, {0xFFFF, 0x8000}) == std::vector<std::uint64_t>{0xFFFF, 0x8000});
  CHECK(copy_through(Type::I16, Type::I32, {0xFFFF, 0x8000, 0x1234}) ==
        std::vector<std::uint64_t>{0xFFFFFFFF, 0xFFFF8000, 0x1234});
}

TEST_CASE("narrow integer stores truncate") {
  CHECK(copy_through(Type::U32, Type::U8, {0x12345678, 0xFFFFFFFF}) == std::vector<std::uint64_t>{0x78, 0xFF});
  CHECK(copy_through(Type::U32, Type::U16, {0x12345678}) == std::vector<std::uint64_t>{0x5678});
  CHECK(copy_through(Type::I32, Type::I8, {0xFFFFFF7F, 0x80}) == std::vector<std::uint64_t>{0x7F, 0x80});
  CHECK(copy_through(Type::I32, Type::I16, {70000, 0xFFFF8000}) == std::vector<std::uint64_t>{0x1170, 0x8000});
}

TEST_CASE("f16 stores round to nearest even, overflow to inf, keep subnormals, canonical NaN") {
  struct Row {
    std::uint32_t f32;
    std::uint16_t f16;
  };
  const std::vector<Row> rows = {
      {f32_bits(1.0f), 0x3C00},    {f32_bits(-2.0f), 0xC000},     {f32_bits(65504.0f), 0x7BFF},
      {f32_bits(65519.99f), 0x7BFF}, {f32_bits(65520.0f), 0x7C00}, {f32_bits(1e10f), 0x7C00},
      {0xFF800000u, 0xFC00},       {0x7FC00000u, 0x7E00},         {0xFFC00001u, 0x7E00},
      {0x7F800001u, 0x7E00},       {0x3F801000u, 0x3C00},         {0x3F803000u, 0x3C02},
      {0x3F801008u, 0x3C01},       {0x33800000u, 0x0001},         {0x33000000u, 0x0000},
      {0x33000001u, 0x0001},       {0x33C00000u, 0x0002},         {0x38800000u, 0x0400},
      {0x387FC000u, 0x03FF},       {0x387FF000u, 0x0400},         {f32_bits(-0.0f), 0x8000},
      {0x00000001u, 0x0000},       {0x80000001u, 0x8000},         {0xB3000001u, 0x8001},
  };
  std::vector<std::uint64_t> in;
  for (const Row& r : rows) in.push_back(r.f32);
  auto got = copy_through(Type::F32, Type::F16, in);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    INFO("f32 0x", std::hex, rows[i].f32);
    CHECK(got[i] == rows[i].f16);
  }
}

TEST_CASE("every f16 pattern loads exactly and stores back to itself") {
  std::vector<std::uint64_t> all;
  for (std::uint32_t h = 0; h < 0x10000; ++h) all.push_back(h);
  auto as_f32 = copy_through(Type::F16, Type::F32, all);
  auto back = copy_through(Type::F16, Type::F16, all);
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    double v = f16_value(static_cast<std::uint16_t>(h));
    INFO("f16 0x", std::hex, h);
    if (std::isnan(v)) {
      REQUIRE(as_f32[h] == 0x7FC00000u);  // the f32 store canonicalises the widened NaN
      REQUIRE(back[h] == 0x7E00u);
      continue;
    }
    REQUIRE(f32_of(as_f32[h]) == static_cast<float>(v));
    REQUIRE(std::signbit(f32_of(as_f32[h])) == ((h & 0x8000) != 0));
    REQUIRE(back[h] == h);
  }
}

TEST_CASE("f32 -> f16 rounding agrees with a nearest-value search on random floats") {
  std::vector<std::pair<double, std::uint16_t>> table;
  for (std::uint16_t h = 0; h < 0x7C00; ++h) table.emplace_back(f16_value(h), h);
  std::mt19937_64 rng(3);
  std::vector<std::uint64_t> in;
  for (int i = 0; i < 20000; ++i) {
    int exp = static_cast<int>(rng() % 40) - 30;  // 2^-30 .. 2^9 .. and beyond the range
    float v = std::ldexp(static_cast<float>(rng() % (1u << 24)) / static_cast<float>(1u << 23), exp);
    if (i % 7 == 0) v = -v;
    if (i % 11 == 0) v = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    in.push_back(f32_bits(v));
  }
  auto got = copy_through(Type::F32, Type::F16, in);
  for (std::size_t i = 0; i < in.size(); ++i) {
    INFO("f32 0x", std::hex, in[i]);
    REQUIRE(got[i] == f16_nearest(f32_of(in[i]), table));
  }
}

TEST_CASE("bf16 stores round to nearest even; loads are exact") {
  struct Row {
    std::uint32_t f32;
    std::uint16_t bf16;
  };
  const std::vector<Row> rows = {
      {f32_bits(1.0f), 0x3F80}, {0x7FC00000u, 0x7FC0}, {0xFFC12345u, 0x7FC0}, {0x7F800001u, 0x7FC0},
      {0x3F808000u, 0x3F80},    {0x3F818000u, 0x3F82}, {0x3F808001u, 0x3F81}, {0x7F7FFFFFu, 0x7F80},
      {0xFF7FFFFFu, 0xFF80},    {0x00018000u, 0x0002}, {0x00008000u, 0x0000}, {0x80000000u, 0x8000},
      {0xFF800000u, 0xFF80},
  };
  std::vector<std::uint64_t> in;
  for (const Row& r : rows) in.push_back(r.f32);
  auto got = copy_through(Type::F32, Type::BF16, in);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    INFO("f32 0x", std::hex, rows[i].f32);
    CHECK(got[i] == rows[i].bf16);
  }
  CHECK(copy_through(Type::BF16, Type::F32, {0x0001, 0xC040, 0x7F80}) ==
        std::vector<std::uint64_t>{0x00010000u, 0xC0400000u, 0x7F800000u});
}

TEST_CASE("f32 and f64 stores write the canonical NaN and keep every other value") {
  CHECK(copy_through(Type::F32, Type::F32, {0x7F800001u, 0xFFC00000u, 0x7FFFFFFFu, 0xFF800000u, 0x80000000u, 1u}) ==
        std::vector<std::uint64_t>{0x7FC00000u, 0x7FC00000u, 0x7FC00000u, 0xFF800000u, 0x80000000u, 1u});
  CHECK(copy_through(Type::F64, Type::F64, {0x7FF0000000000001ull, 0xFFF8000000000000ull, 0x8000000000000000ull}) ==
        std::vector<std::uint64_t>{0x7FF8000000000000ull, 0x7FF8000000000000ull, 0x8000000000000000ull});
}

TEST_CASE("bool is stored as a 0/1 word; any non-zero word loads as true") {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto flags = b.buffer("flags", Access::Read, Type::Bool);
  auto x = b.buffer("x", Access::Read, Type::U32);
  auto picked = b.buffer("picked", Access::Output, Type::U32, 4);
  auto stored = b.buffer("stored", Access::Output, Type::Bool, 4);
  auto i = b.let("i", invocation_id(0));
  b.store(picked, i, select(flags[i], u32(10), u32(20)));
  b.store(stored, i, ne(x[i], u32(0)));
  auto out = run(b.build(), {bytes_of(std::vector<std::uint32_t>{0, 1, 2, 0x80000000u}),
                             bytes_of(std::vector<std::uint32_t>{0, 5, 0, 0xFFFFFFFFu})});
  CHECK(values_of<std::uint32_t>(out[0]) == std::vector<std::uint32_t>{20, 10, 10, 10});
  CHECK(values_of<std::uint32_t>(out[1]) == std::vector<std::uint32_t>{0, 1, 0, 1});
}

TEST_CASE("out-of-bounds loads read zero, stores are dropped, i32 indices below zero are out of bounds") {
  vyre::ProgramBuilder b;
  b.workgroup(1);
  auto x = b.buffer("x", Access::Read, Type::F32);
  auto o = b.buffer("o", Access::Output, Type::F32, 4);
  auto n = b.buffer("n", Access::Output, Type::U32, 2);
  b.store(o, u32(0), x[u32(3)]);           // in bounds
  b.store(o, u32(1), x[u32(4)]);           // out of bounds: +0
  b.store(o, u32(2), x[i32(-1)]);          // negative i32: +0
  b.store(o, u32(3), x[i32(1)]);           // i32 in bounds
  b.store(o, u32(4), f32(9.0f));           // dropped
  b.store(o, i32(-1), f32(9.0f));          // dropped
  b.store(o, u32(0xFFFFFFFFu), f32(9.0f)); // dropped
  b.store(n, u32(0), buf_len("x"));
  b.store(n, u32(1), bitcast(Type::U32, x[u32(100)]));
  auto out = run(b.build(), {bytes_of(std::vector<float>{-1.0f, 2.0f, -3.0f, -4.0f})}, elements(1));
  CHECK(values_of<float>(out[0]) == std::vector<float>{-4.0f, 0.0f, 0.0f, 2.0f});
  CHECK(values_of<std::uint32_t>(out[1]) == std::vector<std::uint32_t>{4, 0});
}

TEST_CASE("global atomics: returned old values, deterministic final memory, out of bounds") {
  const std::uint32_t n = 1000;
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto vals = b.buffer("vals", Access::Read, Type::I32);
  auto acc = b.buffer("acc", Access::ReadWrite, Type::I32);
  auto wide = b.buffer("wide", Access::ReadWrite, Type::U64);
  auto olds = b.buffer("olds", Access::Output, Type::U32, n);
  auto oob = b.buffer("oob", Access::Output, Type::I32, n);
  auto i = b.let("i", invocation_id(0));
  b.if_(lt(i, u32(n)), [&] {
    auto v = b.let("v", vals[i]);
    b.store(olds, i, bitcast(Type::U32, atomic(AtomicOp::Add, "acc", u32(0), i32(1))));
    b.emit(let("_and", atomic(AtomicOp::And, "acc", u32(1), v)));
    b.emit(let("_or", atomic(AtomicOp::Or, "acc", u32(2), v)));
    b.emit(let("_xor", atomic(AtomicOp::Xor, "acc", u32(3), v)));
    b.emit(let("_min", atomic(AtomicOp::Min, "acc", u32(4), v)));
    b.emit(let("_max", atomic(AtomicOp::Max, "acc", u32(5), v)));
    b.emit(let("_wide", atomic(AtomicOp::Add, "wide", u32(0), u64(0x100000001ull))));
    b.store(oob, i, atomic(AtomicOp::Add, "acc", u32(6), i32(5)));   // one past the end
    b.emit(let("_neg", atomic(AtomicOp::Add, "acc", i32(-1), i32(5))));
  });
  std::vector<std::int32_t> v(n);
  std::mt19937 rng(1);
  for (auto& x : v) x = static_cast<std::int32_t>(rng());
  std::vector<std::int32_t> acc0 = {0, -1, 0, 0, std::numeric_limits<std::int32_t>::max(),
                                    std::numeric_limits<std::int32_t>::min()};
  auto out = run(b.build(), {bytes_of(v), bytes_of(acc0), bytes_of(std::vector<std::uint64_t>{0xFFFFFFFFull})});
  auto accs = values_of<std::int32_t>(out[0]);
  std::int32_t all_and = -1, all_or = 0, all_xor = 0;
  for (auto x : v) {
    all_and &= x;
    all_or |= x;
    all_xor ^= x;
  }
  CHECK(accs[0] == static_cast<std::int32_t>(n));
  CHECK(accs[1] == all_and);
  CHECK(accs[2] == all_or);
  CHECK(accs[3] == all_xor);
  CHECK(accs[4] == *std::min_element(v.begin(), v.end()));
  CHECK(accs[5] == *std::max_element(v.begin(), v.end()));
  CHECK(values_of<std::uint64_t>(out[1])[0] == 0xFFFFFFFFull + n * 0x100000001ull);
  auto olds_v = values_of<std::uint32_t>(out[2]);
  std::sort(olds_v.begin(), olds_v.end());
  std::vector<std::uint32_t> expected(n);
  std::iota(expected.begin(), expected.end(), 0u);
  CHECK(olds_v == expected);  // every invocation saw a distinct old value
  auto oob_v = values_of<std::int32_t>(out[3]);
  CHECK(std::all_of(oob_v.begin(), oob_v.end(), [](std::int32_t x) { return x == 0; }));
}

TEST_CASE("atomic exchange and compare_exchange return the old element") {
  vyre::ProgramBuilder b;
  b.workgroup(4);
  auto mem = b.buffer("mem", Access::ReadWrite, Type::U32);
  auto wide = b.buffer("wide", Access::ReadWrite, Type::U64);
  auto olds = b.buffer("olds", Access::Output, Type::U32, 4);
  auto wide_olds = b.buffer("wide_olds", Access::Output, Type::U64, 4);
  auto i = b.let("i", invocation_id(0));
  // lane 0: exchange; lane 1: cas that matches; lane 2: cas that fails; lane 3: out of bounds cas
  b.if_(eq(i, u32(0)), [&] { b.store(olds, i, atomic(AtomicOp::Exchange, "mem", u32(0), u32(77))); });
  b.if_(eq(i, u32(1)), [&] { b.store(olds, i, compare_exchange("mem", u32(1), u32(10), u32(11))); });
  b.if_(eq(i, u32(2)), [&] { b.store(olds, i, compare_exchange("mem", u32(2), u32(99), u32(12))); });
  b.if_(eq(i, u32(3)), [&] { b.store(olds, i, compare_exchange("mem", u32(3), u32(0), u32(13))); });
  b.store(wide_olds, i, compare_exchange("wide", i, u64(0x1234567800000000ull), u64(0xABCDull)));
  auto out = run(b.build(), {bytes_of(std::vector<std::uint32_t>{5, 10, 20}),
                             bytes_of(std::vector<std::uint64_t>{0x1234567800000000ull, 0x1234567800000001ull})},
                 elements(4));
  CHECK(values_of<std::uint32_t>(out[0]) == std::vector<std::uint32_t>{77, 11, 20});
  CHECK(values_of<std::uint64_t>(out[1]) == std::vector<std::uint64_t>{0xABCDull, 0x1234567800000001ull});
  CHECK(values_of<std::uint32_t>(out[2]) == std::vector<std::uint32_t>{5, 10, 20, 0});
  CHECK(values_of<std::uint64_t>(out[3]) ==
        std::vector<std::uint64_t>{0x1234567800000000ull, 0x1234567800000001ull, 0, 0});
}

TEST_CASE("workgroup atomics build a per-workgroup histogram") {
  const std::uint32_t groups = 8, wg = 128, bins = 16;
  vyre::ProgramBuilder b;
  b.workgroup(wg);
  auto x = b.buffer("x", Access::Read, Type::U32);
  auto hist = b.buffer("hist", Access::Output, Type::U32, groups * bins);
  b.buffer("local", Access::Workgroup, Type::U32, bins);
  auto i = b.let("i", invocation_id(0));
  b.emit(let("_h", atomic(AtomicOp::Add, "local", x[i] % u32(bins), u32(1))));
  b.emit(let("_oob", atomic(AtomicOp::Add, "local", u32(bins), u32(1))));
  b.barrier();
  b.if_(lt(local_id(0), u32(bins)), [&] {
    b.store(hist, workgroup_id(0) * u32(bins) + local_id(0), load("local", local_id(0)));
  });
  std::vector<std::uint32_t> data(groups * wg);
  std::mt19937 rng(2);
  for (auto& d : data) d = rng();
  auto out = values_of<std::uint32_t>(run(b.build(), {bytes_of(data)}, grid(groups))[0]);
  std::vector<std::uint32_t> expected(groups * bins, 0);
  for (std::uint32_t k = 0; k < data.size(); ++k) ++expected[(k / wg) * bins + data[k] % bins];
  CHECK(out == expected);
}
