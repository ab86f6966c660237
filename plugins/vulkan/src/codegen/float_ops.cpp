// Float operators (f32, f64). add, sub and mul are the device's instructions (Vulkan promises
// correct rounding; the module asks for round-to-nearest-even and kept denormals where the device
// offers those modes), marked NoContraction so nothing fuses them. fma is fused where the device's
// fma of the width is (ModuleContext::fused_fma: OpFmaKHR from VK_KHR_shader_fma, or GLSL.std.450
// Fma after the fma probe passed; rounded once, as SPEC wants). div, sqrt, reciprocal, and fma
// elsewhere, call the exact implementations of math/library.hpp (for f32 fma on a device with f64,
// FmaSource::Wide, computed in f64), inverse_sqrt and the transcendentals the
// shared math library (math/library.hpp). Everything else is exact integer work on the bit patterns:
// comparisons (so a device that flushes denormals still orders them), min/max with SPEC's NaN and
// signed-zero rules, neg, abs, sign, the rounding functions and the classification predicates.
#include "codegen/emitter.hpp"
#include "codegen/float_layout.hpp"
#include "math/library.hpp"
#include "vyre/error.hpp"

namespace vyre::vulkan::codegen {

namespace {

struct FloatBits {
  Emitter& e;
  FloatLayout l;
  Id ut;  // the unsigned type of the same width

  Id c(std::uint64_t v) { return e.ctx().module().constant(ut, v); }
  Id op(spv::Op o, Id a, Id b) { return e.op(o, ut, {a, b}); }
  Id band(Id a, Id b) { return op(spv::Op::OpBitwiseAnd, a, b); }
  Id bor(Id a, Id b) { return op(spv::Op::OpBitwiseOr, a, b); }
  Id bxor(Id a, Id b) { return op(spv::Op::OpBitwiseXor, a, b); }
  Id magnitude(Id bits) { return band(bits, c(~l.sign)); }
  Id nan(Id bits) { return e.ult(c(l.exponent_mask), magnitude(bits)); }
  Id negative(Id bits) { return e.ine(band(bits, c(l.sign)), c(0)); }
  // A key that orders non-NaN floats as unsigned integers (-0 just below +0).
  Id key(Id bits) {
    return e.select(ut, negative(bits), e.op(spv::Op::OpNot, ut, {bits}), bor(bits, c(l.sign)));
  }
  Id both_zero(Id a, Id b) { return e.ieq(magnitude(bor(a, b)), c(0)); }
  Id ordered(Id a, Id b) { return e.lnot(e.lor(nan(a), nan(b))); }
  Id eq(Id a, Id b) { return e.land(ordered(a, b), e.lor(e.ieq(a, b), both_zero(a, b))); }
  Id lt(Id a, Id b) { return e.land(e.land(ordered(a, b), e.lnot(both_zero(a, b))), e.ult(key(a), key(b))); }

  // min/max: a NaN operand yields the other; min(-0, +0) = -0, max(-0, +0) = +0.
  Id min_max(bool is_min, Id a, Id b) {
    const Id a_lt_b = lt(a, b), b_lt_a = lt(b, a);
    const Id tie = is_min ? bor(a, b) : band(a, b);  // equal values, or ±0
    Id r = e.select(ut, is_min ? a_lt_b : b_lt_a, a, e.select(ut, is_min ? b_lt_a : a_lt_b, b, tie));
    r = e.select(ut, nan(b), a, r);
    return e.select(ut, nan(a), b, r);
  }

  // floor, ceil, trunc, round (ties to even) by clearing fraction bits.
  Id rounding(UnOp o, Id bits) {
    const Id u32 = e.ctx().uint(32);
    const Id mag = magnitude(bits);
    const Id sign = band(bits, c(l.sign));
    const Id neg = negative(bits);
    Id biased = op(spv::Op::OpShiftRightLogical, mag, c(l.mantissa_bits));
    if (l.width == 64) biased = e.op(spv::Op::OpUConvert, u32, {biased});
    // |x| >= 2^mantissa_bits (also inf and NaN): already an integer.
    const Id integral = e.op(spv::Op::OpUGreaterThanEqual, e.ctx().bool_type(), {biased, e.ctx().u32(l.bias + l.mantissa_bits)});
    const Id below_one = e.ult(biased, e.ctx().u32(l.bias));
    // 1 <= |x| < 2^mantissa_bits: fraction mask by the exponent.
    Id shift = e.op(spv::Op::OpISub, u32, {biased, e.ctx().u32(l.bias)});
    shift = e.fn().glsl(u32, GLSLstd450UMin, {shift, e.ctx().u32(l.mantissa_bits)});
    if (l.width == 64) shift = e.op(spv::Op::OpUConvert, ut, {shift});
    const Id frac_mask = op(spv::Op::OpShiftRightLogical, c(l.mantissa_mask), shift);
    const Id frac = band(mag, frac_mask);
    const Id truncated = band(bits, e.op(spv::Op::OpNot, ut, {frac_mask}));
    const Id unit = op(spv::Op::OpIAdd, frac_mask, c(1));  // one at the lowest integer bit
    const Id has_frac = e.ine(frac, c(0));
    Id up;  // whether the magnitude grows by one unit
    Id small;  // the result for |x| < 1
    const Id one = bor(sign, c(l.one));
    const Id nonzero = e.ine(mag, c(0));
    switch (o) {
      case UnOp::Floor:
        up = e.land(neg, has_frac);
        small = e.select(ut, e.land(neg, nonzero), one, sign);
        break;
      case UnOp::Ceil:
        up = e.land(e.lnot(neg), has_frac);
        small = e.select(ut, e.land(e.lnot(neg), nonzero), one, sign);
        break;
      case UnOp::Round: {
        const Id half = op(spv::Op::OpShiftRightLogical, unit, c(1));
        const Id odd = e.ine(band(mag, unit), c(0));
        up = e.lor(e.ult(half, frac), e.land(e.ieq(frac, half), odd));
        const Id half_bits = c(l.one - (std::uint64_t{1} << l.mantissa_bits));  // 0.5
        small = e.select(ut, e.ult(half_bits, mag), one, sign);  // |x| > 0.5 -> ±1
        break;
      }
      default:  // Trunc
        up = e.ctx().boolean(false);
        small = sign;
        break;
    }
    const Id adjusted = e.select(ut, up, op(spv::Op::OpIAdd, truncated, unit), truncated);
    return e.select(ut, integral, bits, e.select(ut, below_one, small, adjusted));
  }
};

}  // namespace

Value Emitter::float_binary(BinOp o, const Value& a, const Value& b) {
  const Id t = ctx_.type(a.type);
  FloatBits x{*this, layout_of(a.type), ctx_.uint(bit_width(a.type))};
  auto same = [&](Id id) { return Value{id, a.type}; };
  auto boolean = [&](Id id) { return Value{id, Type::Bool}; };
  switch (o) {
    case BinOp::Add: return same(fop(spv::Op::OpFAdd, t, {a.id, b.id}));
    case BinOp::Sub: return same(fop(spv::Op::OpFSub, t, {a.id, b.id}));
    case BinOp::Mul: return same(fop(spv::Op::OpFMul, t, {a.id, b.id}));
    case BinOp::Div: return same(f_.call(t, math::exact_function(ctx_, math::ExactOp::Div, a.type), {a.id, b.id}));
    case BinOp::Min: case BinOp::Max:
      return same(bitcast(t, x.min_max(o == BinOp::Min, float_bits(a), float_bits(b))));
    default: break;
  }
  const Id ab = float_bits(a), bb = float_bits(b);
  switch (o) {
    case BinOp::Eq: return boolean(x.eq(ab, bb));
    case BinOp::Ne: return boolean(lnot(x.eq(ab, bb)));
    case BinOp::Lt: return boolean(x.lt(ab, bb));
    case BinOp::Gt: return boolean(x.lt(bb, ab));
    case BinOp::Le: return boolean(lor(x.lt(ab, bb), x.eq(ab, bb)));
    case BinOp::Ge: return boolean(lor(x.lt(bb, ab), x.eq(ab, bb)));
    default: break;
  }
  fail(VYRE_ERR_UNSUPPORTED, "the Vulkan emitter does not lower float operator " + std::string(bin_op_name(o)),
       "use a backend that declares it (`vyre ops`)");
}

Value Emitter::float_unary(UnOp o, const Value& a) {
  const Id t = ctx_.type(a.type);
  FloatBits x{*this, layout_of(a.type), ctx_.uint(bit_width(a.type))};
  const Id bits = float_bits(a);
  auto same_bits = [&](Id id) { return Value{bitcast(t, id), a.type}; };
  auto boolean = [&](Id id) { return Value{id, Type::Bool}; };
  const Id mag = x.magnitude(bits);
  switch (o) {
    case UnOp::Neg: return same_bits(x.bxor(bits, x.c(x.l.sign)));
    case UnOp::Abs: return same_bits(mag);
    case UnOp::Sign: {
      // NaN and ±0 are their own sign; anything else is ±1.
      const Id keep = lor(x.nan(bits), ieq(mag, x.c(0)));
      return same_bits(select(x.ut, keep, bits, x.bor(x.band(bits, x.c(x.l.sign)), x.c(x.l.one))));
    }
    case UnOp::Floor: case UnOp::Ceil: case UnOp::Trunc: case UnOp::Round:
      return same_bits(x.rounding(o, bits));
    case UnOp::Sqrt: return {f_.call(t, math::exact_function(ctx_, math::ExactOp::Sqrt, a.type), {a.id}), a.type};
    case UnOp::Reciprocal: {
      const FloatLayout l = layout_of(a.type);
      const Id one = ctx_.module().constant(t, l.one);
      return {f_.call(t, math::exact_function(ctx_, math::ExactOp::Div, a.type), {one, a.id}), a.type};
    }
    case UnOp::IsNan: return boolean(x.nan(bits));
    case UnOp::IsInf: return boolean(ieq(mag, x.c(x.l.exponent_mask)));
    case UnOp::IsFinite: return boolean(ult(mag, x.c(x.l.exponent_mask)));
    default: break;
  }
  if (math::is_library_op(o)) return {f_.call(t, math::math_function(ctx_, o, a.type), {a.id}), a.type};
  fail(VYRE_ERR_UNSUPPORTED, "the Vulkan emitter does not lower float operator " + std::string(un_op_name(o)),
       "use a backend that declares it (`vyre ops`)");
}

Value Emitter::fma(const Value& a, const Value& b, const Value& c) {
  if (ctx_.native_fma(a.type)) return {ctx_.fused_fma(f_, a.type, a.id, b.id, c.id), a.type};
  const Id t = ctx_.type(a.type);
  return {f_.call(t, math::exact_function(ctx_, math::ExactOp::Fma, a.type), {a.id, b.id, c.id}), a.type};
}

}  // namespace vyre::vulkan::codegen
