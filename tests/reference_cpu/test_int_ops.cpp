// Integer and bool operators of the reference plugin against hand-written edge tables (SPEC §2:
// RISC-V division, shifts modulo the width, saturation, mul_high, abs(MIN), clz(0), ...) and
// against an independent exact model (__int128 arithmetic) on random operands.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "refcpu_harness.hpp"
#include "vyre/ops.hpp"

using refcpu_test::eval_binary;
using refcpu_test::eval_unary;
using vyre::BinOp;
using vyre::Type;
using vyre::UnOp;

namespace {

constexpr std::uint64_t kI32Min = 0x80000000u;
constexpr std::uint64_t kI32Max = 0x7FFFFFFFu;
constexpr std::uint64_t kU32Max = 0xFFFFFFFFu;
constexpr std::uint64_t kI64Min = 0x8000000000000000ull;
constexpr std::uint64_t kI64Max = 0x7FFFFFFFFFFFFFFFull;
constexpr std::uint64_t kU64Max = 0xFFFFFFFFFFFFFFFFull;

std::uint64_t i32(std::int32_t v) { return static_cast<std::uint32_t>(v); }
std::uint64_t i64(std::int64_t v) { return static_cast<std::uint64_t>(v); }

struct BinRow {
  BinOp op;
  Type type;
  std::uint64_t a, b, expected;
};

struct UnRow {
  UnOp op;
  Type type;
  std::uint64_t a, expected;
};

const std::vector<BinRow> kBinRows = {
    // wrapping add/sub/mul
    {BinOp::Add, Type::U32, kU32Max, 1, 0},
    {BinOp::Add, Type::I32, kI32Max, 1, kI32Min},
    {BinOp::Sub, Type::I32, kI32Min, 1, kI32Max},
    {BinOp::Sub, Type::U32, 0, 1, kU32Max},
    {BinOp::Mul, Type::I32, kI32Min, i32(-1), kI32Min},
    {BinOp::Mul, Type::U32, 0x10000, 0x10000, 0},
    {BinOp::Mul, Type::U64, 0x100000000ull, 0x100000000ull, 0},
    {BinOp::Add, Type::I64, kI64Max, 1, kI64Min},
    // RISC-V division
    {BinOp::Div, Type::U32, 7, 0, kU32Max},
    {BinOp::Div, Type::U32, 0, 0, kU32Max},
    {BinOp::Div, Type::U32, 7, 2, 3},
    {BinOp::Div, Type::I32, 7, 0, i32(-1)},
    {BinOp::Div, Type::I32, i32(-7), 0, i32(-1)},
    {BinOp::Div, Type::I32, kI32Min, i32(-1), kI32Min},
    {BinOp::Div, Type::I32, i32(-7), 2, i32(-3)},
    {BinOp::Div, Type::I32, 7, i32(-2), i32(-3)},
    {BinOp::Div, Type::U64, 7, 0, kU64Max},
    {BinOp::Div, Type::I64, i64(-7), 0, kU64Max},
    {BinOp::Div, Type::I64, kI64Min, kU64Max, kI64Min},
    {BinOp::Mod, Type::U32, 7, 0, 7},
    {BinOp::Mod, Type::U32, 7, 3, 1},
    {BinOp::Mod, Type::I32, i32(-7), 0, i32(-7)},
    {BinOp::Mod, Type::I32, kI32Min, i32(-1), 0},
    {BinOp::Mod, Type::I32, i32(-7), 2, i32(-1)},
    {BinOp::Mod, Type::I32, 7, i32(-2), 1},
    {BinOp::Mod, Type::I64, kI64Min, kU64Max, 0},
    {BinOp::Mod, Type::U64, 9, 0, 9},
    // shifts and rotates: amount modulo the width; shr arithmetic for signed types
    {BinOp::Shl, Type::U32, 1, 32, 1},
    {BinOp::Shl, Type::U32, 1, 33, 2},
    {BinOp::Shl, Type::I32, 1, 31, kI32Min},
    {BinOp::Shl, Type::U64, 1, 64, 1},
    {BinOp::Shl, Type::U64, 1, 65, 2},
    {BinOp::Shl, Type::I64, 3, 0xFFFFFFFFu, i64(static_cast<std::int64_t>(0x8000000000000000ull))},
    {BinOp::Shr, Type::U32, kI32Min, 31, 1},
    {BinOp::Shr, Type::U32, kI32Min, 32, kI32Min},
    {BinOp::Shr, Type::I32, i32(-8), 1, i32(-4)},
    {BinOp::Shr, Type::I32, i32(-1), 35, i32(-1)},
    {BinOp::Shr, Type::I32, kI32Min, 31, i32(-1)},
    {BinOp::Shr, Type::I64, kI64Min, 63, kU64Max},
    {BinOp::Shr, Type::U64, kI64Min, 63, 1},
    {BinOp::Rotl, Type::U32, 0x80000001u, 1, 3},
    {BinOp::Rotl, Type::U32, 0x80000001u, 33, 3},
    {BinOp::Rotr, Type::U32, 3, 1, 0x80000001u},
    {BinOp::Rotl, Type::I32, 0x80000001u, 4, 0x18},
    {BinOp::Rotr, Type::U64, 1, 1, kI64Min},
    {BinOp::Rotl, Type::I64, kI64Min, 65, 1},
    // min/max/abs_diff by signedness
    {BinOp::Min, Type::I32, i32(-1), 1, i32(-1)},
    {BinOp::Min, Type::U32, kU32Max, 1, 1},
    {BinOp::Max, Type::I64, i64(-5), i64(-6), i64(-5)},
    {BinOp::Max, Type::U64, kI64Min, 1, kI64Min},
    {BinOp::AbsDiff, Type::I32, kI32Min, kI32Max, kU32Max},
    {BinOp::AbsDiff, Type::I32, kI32Max, kI32Min, kU32Max},
    {BinOp::AbsDiff, Type::U32, 3, 10, 7},
    {BinOp::AbsDiff, Type::I64, kI64Min, kI64Max, kU64Max},
    {BinOp::AbsDiff, Type::U64, 10, 3, 7},
    // saturating arithmetic
    {BinOp::SatAdd, Type::U32, kU32Max, 1, kU32Max},
    {BinOp::SatAdd, Type::I32, kI32Max, 1, kI32Max},
    {BinOp::SatAdd, Type::I32, kI32Min, i32(-1), kI32Min},
    {BinOp::SatAdd, Type::I32, 5, i32(-3), 2},
    {BinOp::SatAdd, Type::U64, kU64Max, 5, kU64Max},
    {BinOp::SatAdd, Type::I64, kI64Min, kU64Max, kI64Min},
    {BinOp::SatSub, Type::U32, 1, 2, 0},
    {BinOp::SatSub, Type::I32, kI32Min, 1, kI32Min},
    {BinOp::SatSub, Type::I32, kI32Max, i32(-1), kI32Max},
    {BinOp::SatSub, Type::U64, 0, kU64Max, 0},
    {BinOp::SatSub, Type::I64, kI64Max, kU64Max, kI64Max},
    {BinOp::SatMul, Type::U32, 0x10000, 0x10000, kU32Max},
    {BinOp::SatMul, Type::I32, kI32Min, i32(-1), kI32Max},
    {BinOp::SatMul, Type::I32, kI32Min, 2, kI32Min},
    {BinOp::SatMul, Type::I32, i32(-65536), 65536, kI32Min},
    {BinOp::SatMul, Type::I32, 65536, 65536, kI32Max},
    {BinOp::SatMul, Type::I32, i32(-3), i32(-4), 12},
    {BinOp::SatMul, Type::I64, kI64Min, kU64Max, kI64Max},
    {BinOp::SatMul, Type::I64, kI64Max, i64(-2), kI64Min},
    {BinOp::SatMul, Type::U64, 0x100000000ull, 0x100000000ull, kU64Max},
    // mul_high
    {BinOp::MulHigh, Type::U32, kU32Max, kU32Max, 0xFFFFFFFEu},
    {BinOp::MulHigh, Type::I32, i32(-1), i32(-1), 0},
    {BinOp::MulHigh, Type::I32, kI32Min, kI32Min, 0x40000000u},
    {BinOp::MulHigh, Type::I32, i32(-1), 1, i32(-1)},
    {BinOp::MulHigh, Type::U64, kU64Max, kU64Max, 0xFFFFFFFFFFFFFFFEull},
    {BinOp::MulHigh, Type::I64, kI64Min, kI64Min, 0x4000000000000000ull},
    {BinOp::MulHigh, Type::I64, i64(-1), 1, kU64Max},
    // bitwise, comparisons, logical
    {BinOp::And, Type::U32, 0xF0F0, 0xFF00, 0xF000},
    {BinOp::Or, Type::I64, 0xF0, 0x0F, 0xFF},
    {BinOp::Xor, Type::U64, kU64Max, 1, kU64Max - 1},
    {BinOp::Lt, Type::I32, i32(-1), 0, 1},
    {BinOp::Lt, Type::U32, kU32Max, 0, 0},
    {BinOp::Ge, Type::I64, kI64Min, kI64Max, 0},
    {BinOp::Gt, Type::U64, kI64Min, kI64Max, 1},
    {BinOp::Le, Type::I32, 5, 5, 1},
    {BinOp::Eq, Type::U32, 5, 6, 0},
    {BinOp::Ne, Type::U32, 5, 6, 1},
    {BinOp::LogicalAnd, Type::U32, 2, 4, 1},
    {BinOp::LogicalAnd, Type::U32, 2, 0, 0},
    {BinOp::LogicalOr, Type::I32, 0, 0, 0},
    {BinOp::LogicalAnd, Type::U64, 0x100000000ull, 1, 1},
    {BinOp::LogicalOr, Type::I64, 0, kI64Min, 1},
    // bool
    {BinOp::And, Type::Bool, 1, 0, 0},
    {BinOp::Or, Type::Bool, 1, 0, 1},
    {BinOp::Xor, Type::Bool, 1, 1, 0},
    {BinOp::Eq, Type::Bool, 0, 0, 1},
    {BinOp::Eq, Type::Bool, 1, 0, 0},
    {BinOp::Ne, Type::Bool, 1, 0, 1},
    {BinOp::LogicalAnd, Type::Bool, 1, 1, 1},
    {BinOp::LogicalOr, Type::Bool, 0, 0, 0},
};

const std::vector<UnRow> kUnRows = {
    {UnOp::Neg, Type::I32, kI32Min, kI32Min},
    {UnOp::Neg, Type::U32, 1, kU32Max},
    {UnOp::Neg, Type::I64, 5, i64(-5)},
    {UnOp::Not, Type::U32, 0, kU32Max},
    {UnOp::Not, Type::I64, 0, kU64Max},
    {UnOp::LogicalNot, Type::U32, 0, 1},
    {UnOp::LogicalNot, Type::U32, 5, 0},
    {UnOp::LogicalNot, Type::U64, 0x100000000ull, 0},
    {UnOp::Abs, Type::I32, kI32Min, kI32Min},
    {UnOp::Abs, Type::I32, i32(-5), 5},
    {UnOp::Abs, Type::U32, kU32Max, kU32Max},
    {UnOp::Abs, Type::I64, kI64Min, kI64Min},
    {UnOp::Sign, Type::I32, i32(-7), i32(-1)},
    {UnOp::Sign, Type::I32, 0, 0},
    {UnOp::Sign, Type::I32, 9, 1},
    {UnOp::Sign, Type::U32, kU32Max, 1},
    {UnOp::Sign, Type::U64, 0, 0},
    {UnOp::Sign, Type::I64, kI64Min, kU64Max},
    {UnOp::Popcount, Type::U32, kU32Max, 32},
    {UnOp::Popcount, Type::I64, kU64Max, 64},
    {UnOp::Popcount, Type::U32, 0, 0},
    {UnOp::Clz, Type::U32, 0, 32},
    {UnOp::Clz, Type::U32, 1, 31},
    {UnOp::Clz, Type::U64, 0, 64},
    {UnOp::Clz, Type::I32, i32(-1), 0},
    {UnOp::Ctz, Type::U32, 0, 32},
    {UnOp::Ctz, Type::I64, 0, 64},
    {UnOp::Ctz, Type::U32, kI32Min, 31},
    {UnOp::ReverseBits, Type::U32, 1, kI32Min},
    {UnOp::ReverseBits, Type::U32, 0x12345678u, 0x1E6A2C48u},
    {UnOp::ReverseBits, Type::U64, 1, kI64Min},
    {UnOp::ReverseBits, Type::I64, 0x12345678ull, 0x1E6A2C4800000000ull},
    {UnOp::Not, Type::Bool, 1, 0},
    {UnOp::Not, Type::Bool, 0, 1},
    {UnOp::LogicalNot, Type::Bool, 1, 0},
};

template <class Row, class Key, class Eval>
void check_grouped(const std::vector<Row>& rows, Key key, Eval eval) {
  std::map<decltype(key(rows[0])), std::vector<const Row*>> groups;
  for (const Row& r : rows) groups[key(r)].push_back(&r);
  for (const auto& [k, group] : groups) eval(group);
}

// ---- an independent model: exact integers in __int128, then wrap / clamp to the type ----

struct IntType {
  unsigned width;
  bool is_signed;
};
IntType info(Type t) {
  switch (t) {
    case Type::U32: return {32, false};
    case Type::I32: return {32, true};
    case Type::U64: return {64, false};
    default: return {64, true};
  }
}
__int128 value_of(Type t, std::uint64_t bits) {
  IntType ti = info(t);
  if (!ti.is_signed) return static_cast<__int128>(bits);
  if (ti.width == 32) return static_cast<std::int32_t>(static_cast<std::uint32_t>(bits));
  return static_cast<std::int64_t>(bits);
}
std::uint64_t wrap(Type t, __int128 v) {
  auto u = static_cast<unsigned __int128>(v);
  return info(t).width == 32 ? static_cast<std::uint64_t>(u & 0xFFFFFFFFu) : static_cast<std::uint64_t>(u);
}
__int128 lo(Type t) {
  IntType ti = info(t);
  if (!ti.is_signed) return 0;
  return -(static_cast<__int128>(1) << (ti.width - 1));
}
__int128 hi(Type t) {
  IntType ti = info(t);
  return (static_cast<__int128>(1) << (ti.is_signed ? ti.width - 1 : ti.width)) - 1;
}
std::uint64_t clamp(Type t, __int128 v) { return wrap(t, v < lo(t) ? lo(t) : v > hi(t) ? hi(t) : v); }

std::uint64_t model(BinOp op, Type t, std::uint64_t abits, std::uint64_t bbits) {
  __int128 a = value_of(t, abits);
  __int128 b = value_of(t, bbits);
  unsigned w = info(t).width;
  switch (op) {
    case BinOp::Add: return wrap(t, a + b);
    case BinOp::Sub: return wrap(t, a - b);
    case BinOp::Mul: return wrap(t, static_cast<__int128>(static_cast<unsigned __int128>(a) * static_cast<unsigned __int128>(b)));
    case BinOp::Div: return b == 0 ? wrap(t, -1) : wrap(t, a / b);
    case BinOp::Mod: return b == 0 ? wrap(t, a) : wrap(t, a % b);
    case BinOp::Min: return wrap(t, a < b ? a : b);
    case BinOp::Max: return wrap(t, a < b ? b : a);
    case BinOp::AbsDiff: return wrap(t, a < b ? b - a : a - b);
    case BinOp::SatAdd: return clamp(t, a + b);
    case BinOp::SatSub: return clamp(t, a - b);
    case BinOp::SatMul: {
      if (w == 64 && !info(t).is_signed) {
        unsigned __int128 up = static_cast<unsigned __int128>(abits) * bbits;
        return up > kU64Max ? kU64Max : static_cast<std::uint64_t>(up);
      }
      return clamp(t, a * b);  // |a*b| <= 2^126 for the signed and 32-bit types
    }
    case BinOp::MulHigh: {
      if (w == 64 && !info(t).is_signed) {  // before a * b, which overflows __int128 for u64
        unsigned __int128 up = static_cast<unsigned __int128>(abits) * bbits;
        return static_cast<std::uint64_t>(up >> 64);
      }
      __int128 p = a * b;  // exact for the signed and 32-bit types
      return wrap(t, p >> w);  // arithmetic shift: floor division by 2^w
    }
    case BinOp::And: return abits & bbits;
    case BinOp::Or: return abits | bbits;
    case BinOp::Xor: return abits ^ bbits;
    case BinOp::Eq: return a == b;
    case BinOp::Ne: return a != b;
    case BinOp::Lt: return a < b;
    case BinOp::Le: return a <= b;
    case BinOp::Gt: return a > b;
    case BinOp::Ge: return a >= b;
    case BinOp::LogicalAnd: return a != 0 && b != 0;
    case BinOp::LogicalOr: return a != 0 || b != 0;
    case BinOp::Shl: {
      unsigned s = static_cast<std::uint32_t>(bbits) % w;
      return wrap(t, static_cast<__int128>(static_cast<unsigned __int128>(abits) << s));
    }
    case BinOp::Shr: {
      unsigned s = static_cast<std::uint32_t>(bbits) % w;
      return wrap(t, a >> s);
    }
    case BinOp::Rotl:
    case BinOp::Rotr: {
      unsigned s = static_cast<std::uint32_t>(bbits) % w;
      if (op == BinOp::Rotr) s = (w - s) % w;
      unsigned __int128 u = static_cast<unsigned __int128>(wrap(t, a));
      return wrap(t, static_cast<__int128>((u << s) | (u >> (w - s))));
    }
  }
  return 0;
}

std::uint64_t random_operand(std::mt19937_64& rng, Type t) {
  static const std::uint64_t edges[] = {0, 1, 2, 3, 0x7F, 0x80, 0xFFFF, 0x7FFFFFFF, 0x80000000,
                                        0xFFFFFFFF, 0x100000000ull, kI64Max, kI64Min, kU64Max,
                                        kU64Max - 1, 0xAAAAAAAAAAAAAAAAull, 0x5555555555555555ull};
  std::uint64_t v = (rng() % 3 == 0) ? edges[rng() % std::size(edges)] : rng();
  if (rng() % 4 == 0) v = static_cast<std::uint64_t>(-static_cast<std::int64_t>(v % 17));
  return info(t).width == 32 ? (v & 0xFFFFFFFFu) : v;
}

}  // namespace

TEST_CASE("integer and bool binary operators: SPEC §2 edge cases") {
  check_grouped(kBinRows, [](const BinRow& r) { return std::make_pair(r.op, r.type); },
                [](const std::vector<const BinRow*>& group) {
                  std::vector<std::uint64_t> a, b;
                  for (const BinRow* r : group) {
                    a.push_back(r->a);
                    b.push_back(r->b);
                  }
                  auto got = eval_binary(group[0]->op, group[0]->type, a, b);
                  REQUIRE(got.size() == group.size());
                  for (std::size_t i = 0; i < group.size(); ++i) {
                    INFO("bin.", vyre::bin_op_name(group[i]->op), ".", vyre::type_name(group[i]->type), "(0x",
                         std::hex, group[i]->a, ", 0x", group[i]->b, ")");
                    CHECK(got[i] == group[i]->expected);
                  }
                });
}

TEST_CASE("integer and bool unary operators: SPEC §2 edge cases") {
  check_grouped(kUnRows, [](const UnRow& r) { return std::make_pair(r.op, r.type); },
                [](const std::vector<const UnRow*>& group) {
                  std::vector<std::uint64_t> a;
                  for (const UnRow* r : group) a.push_back(r->a);
                  auto got = eval_unary(group[0]->op, group[0]->type, a);
                  REQUIRE(got.size() == group.size());
                  for (std::size_t i = 0; i < group.size(); ++i) {
                    INFO("un.", vyre::un_op_name(group[i]->op), ".", vyre::type_name(group[i]->type), "(0x",
                         std::hex, group[i]->a, ")");
                    CHECK(got[i] == group[i]->expected);
                  }
                });
}

TEST_CASE("every integer binary operator agrees with an exact __int128 model on random operands") {
  std::mt19937_64 rng(20240601);
  for (Type t : {Type::U32, Type::I32, Type::U64, Type::I64}) {
    for (int o = 0; o < vyre::kBinOpCount; ++o) {
      auto op = static_cast<BinOp>(o);
      std::vector<std::uint64_t> a, b;
      for (int i = 0; i < 300; ++i) {
        a.push_back(random_operand(rng, t));
        b.push_back(vyre::is_shift(op) ? rng() % 200 : random_operand(rng, t));
      }
      auto got = eval_binary(op, t, a, b);
      for (std::size_t i = 0; i < a.size(); ++i) {
        INFO("bin.", vyre::bin_op_name(op), ".", vyre::type_name(t), "(0x", std::hex, a[i], ", 0x", b[i], ")");
        REQUIRE(got[i] == model(op, t, a[i], b[i]));
      }
    }
  }
}

TEST_CASE("integer unary bit counts agree with a bit-by-bit model") {
  std::mt19937_64 rng(7);
  for (Type t : {Type::U32, Type::I32, Type::U64, Type::I64}) {
    unsigned w = info(t).width;
    std::vector<std::uint64_t> a;
    for (int i = 0; i < 200; ++i) a.push_back(random_operand(rng, t));
    auto pop = eval_unary(UnOp::Popcount, t, a);
    auto clz = eval_unary(UnOp::Clz, t, a);
    auto ctz = eval_unary(UnOp::Ctz, t, a);
    auto rev = eval_unary(UnOp::ReverseBits, t, a);
    for (std::size_t i = 0; i < a.size(); ++i) {
      std::uint64_t count = 0, leading = w, trailing = w, reversed = 0;
      for (unsigned bit = 0; bit < w; ++bit) {
        bool set = (a[i] >> bit) & 1u;
        count += set;
        if (set && trailing == w) trailing = bit;
        if (set) leading = w - 1 - bit;
        if (set) reversed |= std::uint64_t{1} << (w - 1 - bit);
      }
      INFO(vyre::type_name(t), " 0x", std::hex, a[i]);
      CHECK(pop[i] == count);
      CHECK(clz[i] == leading);
      CHECK(ctz[i] == trailing);
      CHECK(rev[i] == reversed);
    }
  }
}
