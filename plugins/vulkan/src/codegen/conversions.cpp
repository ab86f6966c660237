// Cast and Bitcast (SPEC §2 "Casts", docs/SEMANTICS.md "NaN bit patterns are never observable").
// int -> int and bool conversions are exact integer work; int -> float and f64 -> f32 round with
// the device's conversion instructions (correctly rounded in Vulkan, to nearest even where the
// module declares RoundingModeRTE); f32 -> f64 widens exactly on the bits; float -> int truncates
// with the device's instruction only on values in range, and saturates (NaN -> 0) around it.
#include "codegen/emitter.hpp"
#include "codegen/float_layout.hpp"
#include <cmath>
#include <cstring>

#include "vyre/error.hpp"

namespace vyre::vulkan::codegen {

namespace {

// A float constant of type t (f32/f64) from a double that it represents exactly.
Id float_constant(ModuleContext& ctx, Type t, double v) {
  std::uint64_t bits;
  if (t == Type::F32) {
    const float f = static_cast<float>(v);
    std::uint32_t b;
    std::memcpy(&b, &f, 4);
    bits = b;
  } else {
    std::memcpy(&bits, &v, 8);
  }
  return ctx.module().constant(ctx.type(t), bits);
}

}  // namespace

Value Emitter::cast(Type to, const Value& v) {
  const Type from = v.type;
  const Id tt = ctx_.type(to);
  if (to == Type::Bool) {
    if (is_float(from)) {
      const FloatLayout l = layout_of(from);
      const Id ut = ctx_.uint(l.width);
      const Id mag = op(spv::Op::OpBitwiseAnd, ut, {float_bits(v), ctx_.module().constant(ut, ~l.sign)});
      return {ine(mag, ctx_.module().constant(ut, 0)), to};  // NaN -> true, ±0 -> false
    }
    return {ine(v.id, ctx_.zero(from)), to};
  }
  if (from == Type::Bool) {
    if (is_float(to)) return {select(tt, v.id, float_constant(ctx_, to, 1.0), float_constant(ctx_, to, 0.0)), to};
    return {select(tt, v.id, ctx_.lit(to, 1), ctx_.zero(to)), to};
  }
  if (is_int(from) && is_int(to)) {
    if (bit_width(from) == bit_width(to)) return {v.id, to};  // same SPIR-V type
    return {op(is_signed_int(from) ? spv::Op::OpSConvert : spv::Op::OpUConvert, tt, {v.id}), to};
  }
  if (is_int(from) && is_float(to))
    return {fop(is_signed_int(from) ? spv::Op::OpConvertSToF : spv::Op::OpConvertUToF, tt, {v.id}), to};
  if (is_float(from) && is_float(to)) {
    const FloatLayout lt = layout_of(to);
    const Id ut = ctx_.uint(lt.width);
    if (to == Type::F64) {
      // Exact: rebias normals, normalise subnormals, keep infinities; NaN -> canonical.
      const Id u32 = ctx_.uint(32), u64 = ctx_.uint(64);
      auto c32 = [&](std::uint32_t x) { return ctx_.u32(x); };
      auto c64 = [&](std::uint64_t x) { return ctx_.u64(x); };
      const Id bits = float_bits(v);
      const Id sign = op(spv::Op::OpShiftLeftLogical, u64, {op(spv::Op::OpUConvert, u64, {op(spv::Op::OpShiftRightLogical, u32, {bits, c32(31)})}), c64(63)});
      const Id e = op(spv::Op::OpBitwiseAnd, u32, {op(spv::Op::OpShiftRightLogical, u32, {bits, c32(23)}), c32(0xFF)});
      const Id m = op(spv::Op::OpBitwiseAnd, u32, {bits, c32(0x7FFFFF)});
      const Id m64 = op(spv::Op::OpUConvert, u64, {m});
      const Id normal = op(spv::Op::OpBitwiseOr, u64, {
          op(spv::Op::OpShiftLeftLogical, u64, {op(spv::Op::OpUConvert, u64, {op(spv::Op::OpIAdd, u32, {e, c32(896)})}), c64(52)}),
          op(spv::Op::OpShiftLeftLogical, u64, {m64, c64(29)})});
      // Subnormal m * 2^-149 with top bit p: exponent p - 149, biased p + 874.
      const Id p = fn().glsl(u32, GLSLstd450FindUMsb, {m});
      const Id shift = op(spv::Op::OpUConvert, u64, {op(spv::Op::OpISub, u32, {c32(52), p})});
      const Id sub_mant = op(spv::Op::OpBitwiseAnd, u64, {op(spv::Op::OpShiftLeftLogical, u64, {m64, shift}), c64(0xFFFFFFFFFFFFFull)});
      const Id sub_exp = op(spv::Op::OpShiftLeftLogical, u64, {op(spv::Op::OpUConvert, u64, {op(spv::Op::OpIAdd, u32, {p, c32(874)})}), c64(52)});
      const Id subnormal = op(spv::Op::OpBitwiseOr, u64, {sub_exp, sub_mant});
      Id mag = select(u64, ieq(e, c32(0)), select(u64, ieq(m, c32(0)), c64(0), subnormal), normal);
      mag = select(u64, ieq(e, c32(0xFF)), c64(0x7FF0000000000000ull), mag);
      Id out = op(spv::Op::OpBitwiseOr, u64, {sign, mag});
      out = select(u64, is_nan(v), c64(lt.canonical_nan), out);
      return {bitcast(tt, out), to};
    }
    const Id narrowed = fop(spv::Op::OpFConvert, tt, {v.id});
    const Id canon = ctx_.module().constant(ut, lt.canonical_nan);
    return {bitcast(tt, select(ut, is_nan(v), canon, bitcast(ut, narrowed))), to};
  }
  // float -> int: truncate toward zero, saturate, NaN -> 0.
  const std::uint32_t w = bit_width(to);
  const bool is_signed = is_signed_int(to);
  const double hi = is_signed ? std::ldexp(1.0, static_cast<int>(w) - 1) : std::ldexp(1.0, static_cast<int>(w));
  const double lo = is_signed ? -hi : 0.0;
  const Value hi_v{float_constant(ctx_, from, hi), from};
  const Value lo_v{float_constant(ctx_, from, lo), from};
  const Id too_big = lnot(float_binary(BinOp::Lt, v, hi_v).id);      // x >= hi (NaN excluded below)
  const Id too_small = float_binary(BinOp::Lt, v, lo_v).id;          // x < lo
  const Id nan = is_nan(v);
  const Id in_range = lnot(lor(lor(too_big, too_small), nan));
  const Id safe = select(ctx_.type(from), in_range, v.id, float_constant(ctx_, from, 0.0));
  const Id converted = op(is_signed ? spv::Op::OpConvertFToS : spv::Op::OpConvertFToU, tt, {safe});
  const std::uint64_t max = is_signed ? (w == 64 ? 0x7FFFFFFFFFFFFFFFull : 0x7FFFFFFFu) : (w == 64 ? ~0ull : 0xFFFFFFFFu);
  const std::uint64_t min = is_signed ? (w == 64 ? 0x8000000000000000ull : 0x80000000u) : 0;
  Id r = select(tt, too_big, ctx_.lit(to, max), converted);
  r = select(tt, too_small, ctx_.lit(to, min), r);
  return {select(tt, nan, ctx_.zero(to), r), to};
}

Value Emitter::bitcast_value(Type to, const Value& v) {
  const Id tt = ctx_.type(to);
  if (is_float(v.type)) {
    // Any NaN becomes the canonical NaN's bits (docs/SEMANTICS.md).
    const Id bits = canonical_bits(v);
    return {is_float(to) ? bitcast(tt, bits) : bits, to};
  }
  if (is_float(to)) return {bitcast(tt, v.id), to};
  return {v.id, to};  // u32 <-> i32, u64 <-> i64: one SPIR-V type
}

}  // namespace vyre::vulkan::codegen
