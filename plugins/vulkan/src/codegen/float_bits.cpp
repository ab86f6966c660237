// Exact integer manipulation of float bit patterns: NaN tests, the canonical NaN, and the f16 and
// bf16 storage conversions (SPEC §2: widening is exact; narrowing rounds to nearest even,
// overflows to inf, and writes the canonical NaN). No float instruction touches these values, so
// they do not depend on the device's denormal or rounding behaviour.
#include "codegen/emitter.hpp"
#include "codegen/float_layout.hpp"

namespace vyre::vulkan::codegen {

Id Emitter::float_bits(const Value& v) { return bitcast(ctx_.uint(bit_width(v.type)), v.id); }

Id Emitter::is_nan(const Value& v) {
  const FloatLayout l = layout_of(v.type);
  const Id ut = ctx_.uint(l.width);
  const Id magnitude = op(spv::Op::OpBitwiseAnd, ut, {float_bits(v), ctx_.module().constant(ut, ~l.sign)});
  return ult(ctx_.module().constant(ut, l.exponent_mask), magnitude);
}

Id Emitter::canonical_bits(const Value& v) {
  const FloatLayout l = layout_of(v.type);
  const Id ut = ctx_.uint(l.width);
  return select(ut, is_nan(v), ctx_.module().constant(ut, l.canonical_nan), float_bits(v));
}

Id Emitter::f16_bits_to_f32(Id h) {
  const Id u = ctx_.uint(32);
  auto c = [&](std::uint32_t v) { return ctx_.u32(v); };
  auto bop = [&](spv::Op o, Id a, Id b) { return op(o, u, {a, b}); };
  const Id sign = bop(spv::Op::OpShiftLeftLogical, bop(spv::Op::OpShiftRightLogical, h, c(15)), c(31));
  const Id e = bop(spv::Op::OpBitwiseAnd, bop(spv::Op::OpShiftRightLogical, h, c(10)), c(0x1F));
  const Id m = bop(spv::Op::OpBitwiseAnd, h, c(0x3FF));
  // Normal: rebias the exponent. Inf/NaN: all-ones exponent, payload kept.
  const Id normal = bop(spv::Op::OpBitwiseOr, bop(spv::Op::OpShiftLeftLogical, bop(spv::Op::OpIAdd, e, c(112)), c(23)),
                        bop(spv::Op::OpShiftLeftLogical, m, c(13)));
  const Id special = bop(spv::Op::OpBitwiseOr, c(0x7F800000), bop(spv::Op::OpShiftLeftLogical, m, c(13)));
  // Subnormal m * 2^-24 with top bit p: exponent p - 24, i.e. biased p + 103.
  const Id p = fn().glsl(u, GLSLstd450FindUMsb, {m});
  const Id sub_mant = bop(spv::Op::OpBitwiseAnd, bop(spv::Op::OpShiftLeftLogical, m, bop(spv::Op::OpISub, c(23), p)), c(0x7FFFFF));
  const Id subnormal = bop(spv::Op::OpBitwiseOr, bop(spv::Op::OpShiftLeftLogical, bop(spv::Op::OpIAdd, p, c(103)), c(23)), sub_mant);
  Id magnitude = select(u, ieq(e, c(31)), special, normal);
  magnitude = select(u, ieq(e, c(0)), select(u, ieq(m, c(0)), c(0), subnormal), magnitude);
  return bitcast(ctx_.type(Type::F32), bop(spv::Op::OpBitwiseOr, sign, magnitude));
}

Id Emitter::f32_to_f16_bits(const Value& v) {
  const Id u = ctx_.uint(32);
  auto c = [&](std::uint32_t x) { return ctx_.u32(x); };
  auto bop = [&](spv::Op o, Id a, Id b) { return op(o, u, {a, b}); };
  const Id bits = float_bits(v);
  const Id sign = bop(spv::Op::OpBitwiseAnd, bop(spv::Op::OpShiftRightLogical, bits, c(16)), c(0x8000));
  const Id a = bop(spv::Op::OpBitwiseAnd, bits, c(0x7FFFFFFF));
  // Round to nearest even: `kept` are the bits kept, `rest` the `drop` bits dropped.
  auto round = [&](Id kept, Id rest, Id drop) {
    const Id half = bop(spv::Op::OpShiftLeftLogical, c(1), bop(spv::Op::OpISub, drop, c(1)));
    const Id odd = ine(bop(spv::Op::OpBitwiseAnd, kept, c(1)), c(0));
    const Id up = lor(ult(half, rest), land(ieq(rest, half), odd));
    return bop(spv::Op::OpIAdd, kept, select(u, up, c(1), c(0)));
  };
  // Normal f16 range (|x| >= 2^-14): rebias, keep 10 mantissa bits; a carry rounds into the
  // exponent, up to inf.
  const Id e16 = bop(spv::Op::OpISub, bop(spv::Op::OpShiftRightLogical, a, c(23)), c(112));
  const Id kept_n = bop(spv::Op::OpBitwiseOr, bop(spv::Op::OpShiftLeftLogical, e16, c(10)),
                        bop(spv::Op::OpBitwiseAnd, bop(spv::Op::OpShiftRightLogical, a, c(13)), c(0x3FF)));
  const Id normal = round(kept_n, bop(spv::Op::OpBitwiseAnd, a, c(0x1FFF)), c(13));
  // Subnormal f16 (2^-25 <= |x| < 2^-14): the significand with its implicit bit, shifted by
  // s = 126 - E (14..24).
  const Id m = bop(spv::Op::OpBitwiseOr, bop(spv::Op::OpBitwiseAnd, a, c(0x7FFFFF)), c(0x800000));
  // Below 2^-25 the result is 0 (selected below); keep the shift in range there too.
  const Id s = fn().glsl(u, GLSLstd450UMin, {bop(spv::Op::OpISub, c(126), bop(spv::Op::OpShiftRightLogical, a, c(23))), c(31)});
  const Id rest_mask = bop(spv::Op::OpISub, bop(spv::Op::OpShiftLeftLogical, c(1), s), c(1));
  const Id subnormal = round(bop(spv::Op::OpShiftRightLogical, m, s), bop(spv::Op::OpBitwiseAnd, m, rest_mask), s);
  Id h = select(u, ult(a, c(0x38800000)), subnormal, normal);
  h = select(u, ult(a, c(0x33000000)), c(0), h);          // below 2^-25 (ties at 2^-25 go to 0)
  h = select(u, ult(a, c(0x477FF000)), h, c(0x7C00));     // from 65520 on: inf
  h = bop(spv::Op::OpBitwiseOr, sign, h);
  return select(u, is_nan(v), c(0x7E00), h);
}

Id Emitter::bf16_bits_to_f32(Id h) {
  return bitcast(ctx_.type(Type::F32), op(spv::Op::OpShiftLeftLogical, ctx_.uint(32), {h, ctx_.u32(16)}));
}

Id Emitter::f32_to_bf16_bits(const Value& v) {
  const Id u = ctx_.uint(32);
  const Id bits = float_bits(v);
  const Id lsb = op(spv::Op::OpBitwiseAnd, u, {op(spv::Op::OpShiftRightLogical, u, {bits, ctx_.u32(16)}), ctx_.u32(1)});
  const Id rounded = op(spv::Op::OpIAdd, u, {bits, op(spv::Op::OpIAdd, u, {ctx_.u32(0x7FFF), lsb})});
  const Id h = op(spv::Op::OpShiftRightLogical, u, {rounded, ctx_.u32(16)});
  return select(u, is_nan(v), ctx_.u32(0x7FC0), h);
}

}  // namespace vyre::vulkan::codegen
