// Integer operators on u32, i32, u64, i64 with SPEC §2's total semantics. Values are unsigned
// SPIR-V integers; signedness lives in the opcodes. Division never executes with a zero divisor
// or a signed operand (Vulkan leaves OpSRem/OpSMod undefined for negative operands): signed
// division and remainder work on magnitudes. Bit counting is 32-bit only in Vulkan, so 64-bit
// values are split into halves.
#include "codegen/emitter.hpp"
#include "vyre/error.hpp"

namespace vyre::vulkan::codegen {

namespace {

struct IntType {
  Id t;
  std::uint32_t width;
  bool is_signed;
};

// Local helpers over the emitter, kept out of the header.
struct IntOps {
  Emitter& e;
  IntType it;

  Id op(spv::Op o, std::initializer_list<std::uint32_t> operands) { return e.op(o, it.t, operands); }
  Id c(std::uint64_t v) { return e.ctx().module().constant(it.t, v); }
  Id max_value() { return c(it.is_signed ? (it.width == 64 ? 0x7FFFFFFFFFFFFFFFull : 0x7FFFFFFFu)
                                         : (it.width == 64 ? ~0ull : 0xFFFFFFFFu)); }
  Id min_value() { return c(it.is_signed ? (it.width == 64 ? 0x8000000000000000ull : 0x80000000u) : 0); }
  Id all_ones() { return c(it.width == 64 ? ~0ull : 0xFFFFFFFFu); }
  Id lt(Id a, Id b) { return it.is_signed ? e.slt(a, b) : e.ult(a, b); }
  Id negative(Id a) { return e.slt(a, c(0)); }
  Id neg(Id a) { return op(spv::Op::OpISub, {c(0), a}); }
  Id sel(Id cond, Id a, Id b) { return e.select(it.t, cond, a, b); }
  // The shift amount (a u32) modulo the width, in the operand's width.
  Id amount(Id s) {
    const Id masked = e.op(spv::Op::OpBitwiseAnd, e.ctx().uint(32), {s, e.ctx().u32(it.width - 1)});
    return it.width == 64 ? e.op(spv::Op::OpUConvert, it.t, {masked}) : masked;
  }
  Id shl(Id a, Id s) { return op(spv::Op::OpShiftLeftLogical, {a, s}); }
  Id shr_logical(Id a, Id s) { return op(spv::Op::OpShiftRightLogical, {a, s}); }

  // Unsigned magnitude of a signed value (MIN maps to 2^(w-1), exactly its magnitude).
  Id magnitude(Id a) { return sel(negative(a), neg(a), a); }

  Id div_or_mod(bool div, Id a, Id b) {
    const Id zero = e.ieq(b, c(0));
    if (!it.is_signed) {
      const Id safe = sel(zero, c(1), b);
      if (div) return sel(zero, all_ones(), op(spv::Op::OpUDiv, {a, safe}));
      return sel(zero, a, op(spv::Op::OpUMod, {a, safe}));
    }
    const Id na = negative(a), nb = negative(b);
    const Id safe = sel(zero, c(1), magnitude(b));
    if (div) {
      const Id q = op(spv::Op::OpUDiv, {magnitude(a), safe});
      const Id signed_q = sel(e.op(spv::Op::OpLogicalNotEqual, e.ctx().bool_type(), {na, nb}), neg(q), q);
      return sel(zero, all_ones(), signed_q);
    }
    const Id r = op(spv::Op::OpUMod, {magnitude(a), safe});
    return sel(zero, a, sel(na, neg(r), r));
  }

  Id rotate(bool left, Id a, Id s) {
    const Id k = amount(s);
    const Id width = it.width == 64 ? c(64) : c(32);
    const Id back = op(spv::Op::OpBitwiseAnd, {op(spv::Op::OpISub, {width, k}), c(it.width - 1)});
    if (left) return op(spv::Op::OpBitwiseOr, {shl(a, k), shr_logical(a, back)});
    return op(spv::Op::OpBitwiseOr, {shr_logical(a, k), shl(a, back)});
  }

  Id sat_add(Id a, Id b) {
    const Id r = op(spv::Op::OpIAdd, {a, b});
    if (!it.is_signed) return sel(e.ult(r, a), max_value(), r);
    const Id ovf = negative(op(spv::Op::OpBitwiseAnd, {op(spv::Op::OpBitwiseXor, {a, r}),
                                                       op(spv::Op::OpBitwiseXor, {b, r})}));
    return sel(ovf, sel(negative(a), min_value(), max_value()), r);
  }

  Id sat_sub(Id a, Id b) {
    const Id r = op(spv::Op::OpISub, {a, b});
    if (!it.is_signed) return sel(e.ult(a, b), c(0), r);
    const Id ovf = negative(op(spv::Op::OpBitwiseAnd, {op(spv::Op::OpBitwiseXor, {a, b}),
                                                       op(spv::Op::OpBitwiseXor, {a, r})}));
    return sel(ovf, sel(negative(a), min_value(), max_value()), r);
  }

  // The double-width product as {low half, high half}.
  std::pair<Id, Id> wide_mul(Id a, Id b) {
    const Id pair_t = e.ctx().extended_pair(it.t);
    const Id pair = e.op(it.is_signed ? spv::Op::OpSMulExtended : spv::Op::OpUMulExtended, pair_t, {a, b});
    return {e.op(spv::Op::OpCompositeExtract, it.t, {pair, 0}), e.op(spv::Op::OpCompositeExtract, it.t, {pair, 1})};
  }

  Id sat_mul(Id a, Id b) {
    const auto [lo, hi] = wide_mul(a, b);
    if (!it.is_signed) return sel(e.ine(hi, c(0)), max_value(), lo);
    const Id sign_fill = op(spv::Op::OpShiftRightArithmetic, {lo, c(it.width - 1)});
    const Id ovf = e.ine(hi, sign_fill);
    const Id product_negative = negative(op(spv::Op::OpBitwiseXor, {a, b}));
    return sel(ovf, sel(product_negative, min_value(), max_value()), lo);
  }
};

// 32-bit halves of a 64-bit value.
Id lo32(Emitter& e, Id v) { return e.op(spv::Op::OpUConvert, e.ctx().uint(32), {v}); }
Id hi32(Emitter& e, Id v) {
  const Id shifted = e.op(spv::Op::OpShiftRightLogical, e.ctx().uint(64), {v, e.ctx().u64(32)});
  return lo32(e, shifted);
}

Id clz32(Emitter& e, Id v) {
  const Id u32 = e.ctx().uint(32);
  // FindUMsb(0) is -1, so 31 - FindUMsb(v) is 32 for v == 0.
  return e.op(spv::Op::OpISub, u32, {e.ctx().u32(31), e.fn().glsl(u32, GLSLstd450FindUMsb, {v})});
}

Id ctz32(Emitter& e, Id v) {
  const Id u32 = e.ctx().uint(32);
  const Id lsb = e.fn().glsl(u32, GLSLstd450FindILsb, {v});
  return e.select(u32, e.ieq(v, e.ctx().u32(0)), e.ctx().u32(32), lsb);
}

}  // namespace

Value Emitter::int_binary(BinOp o, const Value& a, const Value& b) {
  IntOps x{*this, {ctx_.type(a.type), bit_width(a.type), is_signed_int(a.type)}};
  const Type t = a.type;
  auto same = [&](Id id) { return Value{id, t}; };
  auto boolean = [&](Id id) { return Value{id, Type::Bool}; };
  switch (o) {
    case BinOp::Add: return same(x.op(spv::Op::OpIAdd, {a.id, b.id}));
    case BinOp::Sub: return same(x.op(spv::Op::OpISub, {a.id, b.id}));
    case BinOp::Mul: return same(x.op(spv::Op::OpIMul, {a.id, b.id}));
    case BinOp::Div: return same(x.div_or_mod(true, a.id, b.id));
    case BinOp::Mod: return same(x.div_or_mod(false, a.id, b.id));
    case BinOp::Shl: return same(x.shl(a.id, x.amount(b.id)));
    case BinOp::Shr:
      return same(x.op(x.it.is_signed ? spv::Op::OpShiftRightArithmetic : spv::Op::OpShiftRightLogical,
                       {a.id, x.amount(b.id)}));
    case BinOp::Rotl: return same(x.rotate(true, a.id, b.id));
    case BinOp::Rotr: return same(x.rotate(false, a.id, b.id));
    case BinOp::Min: return same(x.sel(x.lt(a.id, b.id), a.id, b.id));
    case BinOp::Max: return same(x.sel(x.lt(b.id, a.id), a.id, b.id));
    case BinOp::AbsDiff: {
      const Id d1 = x.op(spv::Op::OpISub, {a.id, b.id});
      const Id d2 = x.op(spv::Op::OpISub, {b.id, a.id});
      return {x.sel(x.lt(b.id, a.id), d1, d2), unsigned_of(t)};
    }
    case BinOp::SatAdd: return same(x.sat_add(a.id, b.id));
    case BinOp::SatSub: return same(x.sat_sub(a.id, b.id));
    case BinOp::SatMul: return same(x.sat_mul(a.id, b.id));
    case BinOp::MulHigh: return same(x.wide_mul(a.id, b.id).second);
    case BinOp::And: return same(x.op(spv::Op::OpBitwiseAnd, {a.id, b.id}));
    case BinOp::Or: return same(x.op(spv::Op::OpBitwiseOr, {a.id, b.id}));
    case BinOp::Xor: return same(x.op(spv::Op::OpBitwiseXor, {a.id, b.id}));
    case BinOp::Eq: return boolean(ieq(a.id, b.id));
    case BinOp::Ne: return boolean(ine(a.id, b.id));
    case BinOp::Lt: return boolean(x.lt(a.id, b.id));
    case BinOp::Gt: return boolean(x.lt(b.id, a.id));
    case BinOp::Le: return boolean(lnot(x.lt(b.id, a.id)));
    case BinOp::Ge: return boolean(lnot(x.lt(a.id, b.id)));
    case BinOp::LogicalAnd: return boolean(land(ine(a.id, x.c(0)), ine(b.id, x.c(0))));
    case BinOp::LogicalOr: return boolean(lor(ine(a.id, x.c(0)), ine(b.id, x.c(0))));
  }
  fail(VYRE_ERR_INTERNAL, "SPIR-V emitter: integer operator " + std::string(bin_op_name(o)),
       "report this emitter bug");
}

Value Emitter::int_unary(UnOp o, const Value& a) {
  IntOps x{*this, {ctx_.type(a.type), bit_width(a.type), is_signed_int(a.type)}};
  const Type t = a.type;
  const Id u32 = ctx_.uint(32);
  const bool wide = x.it.width == 64;
  auto same = [&](Id id) { return Value{id, t}; };
  switch (o) {
    case UnOp::Neg: return same(x.neg(a.id));
    case UnOp::Not: return same(x.op(spv::Op::OpNot, {a.id}));
    case UnOp::LogicalNot: return {ieq(a.id, x.c(0)), Type::Bool};
    case UnOp::Abs: return same(x.it.is_signed ? x.magnitude(a.id) : a.id);
    case UnOp::Sign: {
      if (!x.it.is_signed) return same(x.sel(ine(a.id, x.c(0)), x.c(1), x.c(0)));
      const Id minus_one = x.all_ones();
      return same(x.sel(x.lt(x.c(0), a.id), x.c(1), x.sel(x.negative(a.id), minus_one, x.c(0))));
    }
    case UnOp::Popcount: {
      if (!wide) return {op(spv::Op::OpBitCount, u32, {a.id}), Type::U32};
      const Id lo = op(spv::Op::OpBitCount, u32, {lo32(*this, a.id)});
      const Id hi = op(spv::Op::OpBitCount, u32, {hi32(*this, a.id)});
      return {op(spv::Op::OpIAdd, u32, {lo, hi}), Type::U32};
    }
    case UnOp::Clz: {
      if (!wide) return {clz32(*this, a.id), Type::U32};
      const Id hi = hi32(*this, a.id);
      const Id low_part = op(spv::Op::OpIAdd, u32, {ctx_.u32(32), clz32(*this, lo32(*this, a.id))});
      return {select(u32, ine(hi, ctx_.u32(0)), clz32(*this, hi), low_part), Type::U32};
    }
    case UnOp::Ctz: {
      if (!wide) return {ctz32(*this, a.id), Type::U32};
      const Id lo = lo32(*this, a.id);
      const Id high_part = op(spv::Op::OpIAdd, u32, {ctx_.u32(32), ctz32(*this, hi32(*this, a.id))});
      return {select(u32, ine(lo, ctx_.u32(0)), ctz32(*this, lo), high_part), Type::U32};
    }
    case UnOp::ReverseBits: {
      if (!wide) return same(op(spv::Op::OpBitReverse, u32, {a.id}));
      const Id u64 = ctx_.uint(64);
      const Id new_hi = op(spv::Op::OpUConvert, u64, {op(spv::Op::OpBitReverse, u32, {lo32(*this, a.id)})});
      const Id new_lo = op(spv::Op::OpUConvert, u64, {op(spv::Op::OpBitReverse, u32, {hi32(*this, a.id)})});
      const Id shifted = op(spv::Op::OpShiftLeftLogical, u64, {new_hi, ctx_.u64(32)});
      return same(op(spv::Op::OpBitwiseOr, u64, {shifted, new_lo}));
    }
    default: break;
  }
  fail(VYRE_ERR_INTERNAL, "SPIR-V emitter: integer operator " + std::string(un_op_name(o)),
       "report this emitter bug");
}

}  // namespace vyre::vulkan::codegen
