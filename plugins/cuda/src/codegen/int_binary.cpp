// Integer binary operators (u32, i32, u64, i64) with SPEC's total semantics: wrapping arithmetic,
// RISC-V division (x/0 and MIN/-1 handled by predication, PTX's results for them are never used),
// shift amounts modulo the width, saturating arithmetic without 128-bit types.
#include <optional>

#include "codegen/expressions.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda::codegen {

namespace {

bool is_signed(Type t) { return t == Type::I32 || t == Type::I64; }
std::uint32_t width(Type t) { return is_wide(t) ? 64 : 32; }

std::string all_ones(Type t) { return is_wide(t) ? "0xFFFFFFFFFFFFFFFF" : "0xFFFFFFFF"; }
std::string signed_min(Type t) { return is_wide(t) ? "0x8000000000000000" : "0x80000000"; }
std::string signed_max(Type t) { return is_wide(t) ? "0x7FFFFFFFFFFFFFFF" : "0x7FFFFFFF"; }

// d = a <op>.<int type> b
Value arith(FunctionEmitter& f, std::string_view op, const Value& a, const Value& b) {
  Value v = f.value(a.type);
  f.ins("{}.{} {}, {}, {};", op, int_type(a.type), v.reg, a.reg, b.reg);
  return v;
}

Value bitwise(FunctionEmitter& f, std::string_view op, const Value& a, const Value& b) {
  Value v = f.value(a.type);
  f.ins("{}.{} {}, {}, {};", op, bits_type(a.type), v.reg, a.reg, b.reg);
  return v;
}

std::string compare(FunctionEmitter& f, std::string_view cmp, Type t, const std::string& a,
                    const std::string& b) {
  std::string p = f.reg(RegClass::Pred);
  f.ins("setp.{}.{} {}, {}, {};", cmp, int_type(t), p, a, b);
  return p;
}

// Equality against a bit-pattern immediate (typed .b32/.b64 so hex patterns need no sign).
std::string equals_bits(FunctionEmitter& f, const Value& a, const std::string& bits) {
  std::string p = f.reg(RegClass::Pred);
  f.ins("setp.eq.{} {}, {}, {};", bits_type(a.type), p, a.reg, bits);
  return p;
}

Value select_bits(FunctionEmitter& f, Type t, const std::string& cond, const std::string& a,
                  const std::string& b) {
  Value v = f.value(t);
  f.ins("selp.{} {}, {}, {}, {};", bits_type(t), v.reg, a, b, cond);
  return v;
}

// RISC-V M: x/0 = all ones (unsigned) or -1 (signed), x%0 = x, MIN/-1 = MIN, MIN%-1 = 0. The
// divisor is replaced by 1 in those cases (MIN/1 = MIN and MIN%1 = 0 are the wanted results) and
// the zero-divisor results are selected afterwards.
Value divide(FunctionEmitter& f, const Value& a, const Value& b, bool remainder) {
  Type t = a.type;
  std::string zero = equals_bits(f, b, "0");
  std::string unsafe = zero;
  if (is_signed(t)) {
    std::string minus_one = equals_bits(f, b, all_ones(t));
    std::string min_dividend = equals_bits(f, a, signed_min(t));
    std::string overflow = f.reg(RegClass::Pred);
    f.ins("and.pred {}, {}, {};", overflow, minus_one, min_dividend);
    unsafe = f.reg(RegClass::Pred);
    f.ins("or.pred {}, {}, {};", unsafe, zero, overflow);
  }
  Value divisor = select_bits(f, t, unsafe, "1", b.reg);
  Value result = arith(f, remainder ? "rem" : "div", a, divisor);
  if (remainder) return select_bits(f, t, zero, a.reg, result.reg);
  return select_bits(f, t, zero, all_ones(t), result.reg);
}

// floor(log2(v)) when v is a power of two.
std::optional<unsigned> power_of_two(std::uint64_t v) {
  if (v == 0 || (v & (v - 1)) != 0) return std::nullopt;
  unsigned k = 0;
  while ((v >> k) != 1) ++k;
  return k;
}

std::string shift_amount(FunctionEmitter& f, const Value& amount, Type t) {
  std::string masked = f.reg(RegClass::B32);
  f.ins("and.b32 {}, {}, {};", masked, amount.reg, width(t) - 1);
  return masked;
}

Value shift(FunctionEmitter& f, BinOp op, const Value& a, const Value& amount) {
  std::string n = shift_amount(f, amount, a.type);
  Value v = f.value(a.type);
  if (op == BinOp::Shl) {
    f.ins("shl.{} {}, {}, {};", bits_type(a.type), v.reg, a.reg, n);
  } else {
    std::string_view kind = is_signed(a.type) ? "s" : "u";
    f.ins("shr.{}{} {}, {}, {};", kind, width(a.type), v.reg, a.reg, n);
  }
  return v;
}

// 32-bit: a funnel shift of the value with itself (wrap mode takes the amount modulo 32).
// 64-bit: (x << n) | (x >> ((-n) & 63)) with n = amount & 63, which is x itself for n = 0.
Value rotate(FunctionEmitter& f, BinOp op, const Value& a, const Value& amount) {
  bool left = op == BinOp::Rotl;
  Value v = f.value(a.type);
  if (!is_wide(a.type)) {
    f.ins("shf.{}.wrap.b32 {}, {}, {}, {};", left ? "l" : "r", v.reg, a.reg, a.reg, amount.reg);
    return v;
  }
  std::string n = shift_amount(f, amount, a.type);
  std::string negated = f.reg(RegClass::B32);
  f.ins("neg.s32 {}, {};", negated, n);
  std::string m = f.reg(RegClass::B32);
  f.ins("and.b32 {}, {}, 63;", m, negated);
  std::string first = f.reg(RegClass::B64);
  std::string second = f.reg(RegClass::B64);
  f.ins("{}.b64 {}, {}, {};", left ? "shl" : "shr", first, a.reg, n);
  f.ins("{}.b64 {}, {}, {};", left ? "shr" : "shl", second, a.reg, m);
  f.ins("or.b64 {}, {}, {};", v.reg, first, second);
  return v;
}

// |a - b| as the unsigned type of the same width (exact for signed operands too).
Value abs_diff(FunctionEmitter& f, const Value& a, const Value& b) {
  std::string greater = compare(f, "gt", a.type, a.reg, b.reg);
  Value forward = arith(f, "sub", a, b);
  Value backward = arith(f, "sub", b, a);
  return select_bits(f, unsigned_of(a.type), greater, forward.reg, backward.reg);
}

// Signed 64-bit overflow: the sign bit of `mask` is set. The saturated value is MIN when `a` is
// negative, else MAX.
Value saturate_signed_wide(FunctionEmitter& f, const Value& a, const std::string& mask,
                           const Value& wrapped) {
  std::string overflow = f.reg(RegClass::Pred);
  f.ins("setp.lt.s64 {}, {}, 0;", overflow, mask);
  std::string negative = f.reg(RegClass::Pred);
  f.ins("setp.lt.s64 {}, {}, 0;", negative, a.reg);
  Value limit = select_bits(f, a.type, negative, signed_min(a.type), signed_max(a.type));
  return select_bits(f, a.type, overflow, limit.reg, wrapped.reg);
}

Value sat_add(FunctionEmitter& f, const Value& a, const Value& b) {
  if (a.type == Type::I32) return arith(f, "add.sat", a, b);
  Value sum = arith(f, "add", a, b);
  if (!is_signed(a.type)) {
    std::string carry = compare(f, "lt", a.type, sum.reg, a.reg);
    return select_bits(f, a.type, carry, all_ones(a.type), sum.reg);
  }
  // Overflow when both operands' signs differ from the sum's: (a ^ s) & (b ^ s) < 0.
  Value x = bitwise(f, "xor", a, sum);
  Value y = bitwise(f, "xor", b, sum);
  Value mask = bitwise(f, "and", x, y);
  return saturate_signed_wide(f, a, mask.reg, sum);
}

Value sat_sub(FunctionEmitter& f, const Value& a, const Value& b) {
  if (a.type == Type::I32) return arith(f, "sub.sat", a, b);
  Value difference = arith(f, "sub", a, b);
  if (!is_signed(a.type)) {
    std::string borrow = compare(f, "lt", a.type, a.reg, b.reg);
    return select_bits(f, a.type, borrow, "0", difference.reg);
  }
  // Overflow when the operands' signs differ and the result's sign differs from a's:
  // (a ^ b) & (a ^ d) < 0.
  Value x = bitwise(f, "xor", a, b);
  Value y = bitwise(f, "xor", a, difference);
  Value mask = bitwise(f, "and", x, y);
  return saturate_signed_wide(f, a, mask.reg, difference);
}

Value sat_mul_i32(FunctionEmitter& f, const Value& a, const Value& b) {
  std::string wide = f.reg(RegClass::B64);
  f.ins("mul.wide.s32 {}, {}, {};", wide, a.reg, b.reg);
  std::string below_max = f.reg(RegClass::B64);
  f.ins("min.s64 {}, {}, 2147483647;", below_max, wide);
  std::string clamped = f.reg(RegClass::B64);
  f.ins("max.s64 {}, {}, -2147483648;", clamped, below_max);
  Value v = f.value(Type::I32);
  f.ins("cvt.u32.u64 {}, {};", v.reg, clamped);
  return v;
}

// i64: the exact 128-bit product fits iff its high half is the sign extension of its low half;
// otherwise it saturates toward the sign of the high half.
Value sat_mul_i64(FunctionEmitter& f, const Value& a, const Value& b) {
  Value low = arith(f, "mul.lo", a, b);
  Value high = arith(f, "mul.hi", a, b);
  std::string extension = f.reg(RegClass::B64);
  f.ins("shr.s64 {}, {}, 63;", extension, low.reg);
  std::string overflow = f.reg(RegClass::Pred);
  f.ins("setp.ne.b64 {}, {}, {};", overflow, high.reg, extension);
  std::string negative = f.reg(RegClass::Pred);
  f.ins("setp.lt.s64 {}, {}, 0;", negative, high.reg);
  Value limit = select_bits(f, a.type, negative, signed_min(a.type), signed_max(a.type));
  return select_bits(f, a.type, overflow, limit.reg, low.reg);
}

Value sat_mul(FunctionEmitter& f, const Value& a, const Value& b) {
  if (a.type == Type::I32) return sat_mul_i32(f, a, b);
  if (a.type == Type::I64) return sat_mul_i64(f, a, b);
  Value low = arith(f, "mul.lo", a, b);
  Value high = arith(f, "mul.hi", a, b);
  std::string overflow = f.reg(RegClass::Pred);
  f.ins("setp.ne.{} {}, {}, 0;", bits_type(a.type), overflow, high.reg);
  return select_bits(f, a.type, overflow, all_ones(a.type), low.reg);
}

Value comparison(FunctionEmitter& f, BinOp op, const Value& a, const Value& b) {
  return Value{compare(f, comparison_condition(op), a.type, a.reg, b.reg), Type::Bool};
}

Value logical(FunctionEmitter& f, BinOp op, const Value& a, const Value& b) {
  std::string pa = emit_nonzero(f, a);
  std::string pb = emit_nonzero(f, b);
  Value v = f.value(Type::Bool);
  f.ins("{}.pred {}, {}, {};", op == BinOp::LogicalAnd ? "and" : "or", v.reg, pa, pb);
  return v;
}

}  // namespace

Value emit_plain_division(FunctionEmitter& f, BinOp op, const Value& a, const Value& b,
                          std::optional<std::uint64_t> literal) {
  const Type t = a.type;
  const bool remainder = op == BinOp::Mod;
  Value v = f.value(t);
  if (literal && !is_signed(t)) {
    const std::uint64_t divisor = *literal & (is_wide(t) ? ~std::uint64_t{0} : 0xFFFFFFFFull);
    if (auto k = power_of_two(divisor)) {
      if (remainder) {
        f.ins("and.{} {}, {}, {};", bits_type(t), v.reg, a.reg, divisor - 1);
      } else {
        f.ins("shr.u{} {}, {}, {};", width(t), v.reg, a.reg, *k);
      }
      return v;
    }
  }
  std::string operand = b.reg;
  if (literal) {
    // An immediate divisor lets ptxas replace the division by a multiply-high sequence.
    if (t == Type::U32) operand = fmt::format("{}", static_cast<std::uint32_t>(*literal));
    if (t == Type::I32) operand = fmt::format("{}", static_cast<std::int32_t>(static_cast<std::uint32_t>(*literal)));
    if (t == Type::U64) operand = fmt::format("{}", *literal);
    if (t == Type::I64) operand = fmt::format("{}", static_cast<std::int64_t>(*literal));
  }
  f.ins("{}.{} {}, {}, {};", remainder ? "rem" : "div", int_type(t), v.reg, a.reg, operand);
  return v;
}

Value emit_int_binary(FunctionEmitter& f, BinOp op, const Value& a, const Value& b) {
  switch (op) {
    case BinOp::Add: return arith(f, "add", a, b);
    case BinOp::Sub: return arith(f, "sub", a, b);
    case BinOp::Mul: return arith(f, "mul.lo", a, b);
    case BinOp::Div: return divide(f, a, b, false);
    case BinOp::Mod: return divide(f, a, b, true);
    case BinOp::Shl:
    case BinOp::Shr: return shift(f, op, a, b);
    case BinOp::Rotl:
    case BinOp::Rotr: return rotate(f, op, a, b);
    case BinOp::Min: return arith(f, "min", a, b);
    case BinOp::Max: return arith(f, "max", a, b);
    case BinOp::AbsDiff: return abs_diff(f, a, b);
    case BinOp::SatAdd: return sat_add(f, a, b);
    case BinOp::SatSub: return sat_sub(f, a, b);
    case BinOp::SatMul: return sat_mul(f, a, b);
    case BinOp::MulHigh: return arith(f, "mul.hi", a, b);
    case BinOp::And: return bitwise(f, "and", a, b);
    case BinOp::Or: return bitwise(f, "or", a, b);
    case BinOp::Xor: return bitwise(f, "xor", a, b);
    case BinOp::Eq:
    case BinOp::Ne:
    case BinOp::Lt:
    case BinOp::Le:
    case BinOp::Gt:
    case BinOp::Ge: return comparison(f, op, a, b);
    case BinOp::LogicalAnd:
    case BinOp::LogicalOr: return logical(f, op, a, b);
  }
  fail(VYRE_ERR_INVALID_PROGRAM, "an integer binary operator is unknown",
       "validate the program before lowering it");
}

}  // namespace vyre::cuda::codegen
