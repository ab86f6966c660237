// The SPIR-V backend of the math instruction set (plugins/shared/math): each operation appends
// SPIR-V to one function, computing exactly what CpuBackend (cpu_backend.hpp) computes, so the
// shared algorithms mean the same on the CPU twin and on the device. IEEE add, sub and mul are the
// device's (NoContraction); fma is the device's fused fma where it has one (ModuleContext::fused_fma:
// OpFmaKHR, or GLSL.std.450 Fma after a passed probe), else for f32 on a device with f64 the fma
// computed in f64 (algorithms/wide_fma.hpp, FmaSource::Wide), else the exact integer implementation
// (algorithms/exact.hpp); div and sqrt call the seeded
// algorithms (algorithms/seeded_div_sqrt.hpp) or the exact integer ones (math/library.hpp); rounding, comparisons and classification are exact integer work;
// shifts clamp their amount as the twin's do (SPIR-V leaves amounts >= the width undefined).
#pragma once

#include "codegen/emitter.hpp"
#include "math/data_tables.hpp"

namespace vyre::vulkan::math {

using codegen::Id;

class SpirvBackend {
 public:
  struct F32 { Id id; };
  struct F64 { Id id; };
  struct B32 { Id id; };
  struct B64 { Id id; };
  struct Pred { Id id; };
  template <class T>
  struct Var { Id pointer; };

  SpirvBackend(codegen::ModuleContext& ctx, spirv::Function& f) : ctx_(ctx), f_(f), e_(ctx, f) {}
  // For bodies whose f32 fmas have normal (or zero) operands and results of at least 2^-126 (or
  // zero) by construction, the seeded div/sqrt: a wide f32 fma is then wide::fma_normal, without
  // the fallback branch (library.hpp: wide_fma_normal_function).
  void use_normal_fma() { normal_fma_ = true; }

  // ---- constants ----
  F32 c(float v);
  F64 c(double v);
  B32 u32(std::uint32_t v) { return {ctx_.u32(v)}; }
  B64 u64(std::uint64_t v) { return {ctx_.u64(v)}; }

  // ---- float arithmetic ----
  F32 add(F32 a, F32 b) { return {farith(spv::Op::OpFAdd, Type::F32, a.id, b.id)}; }
  F64 add(F64 a, F64 b) { return {farith(spv::Op::OpFAdd, Type::F64, a.id, b.id)}; }
  F32 sub(F32 a, F32 b) { return {farith(spv::Op::OpFSub, Type::F32, a.id, b.id)}; }
  F64 sub(F64 a, F64 b) { return {farith(spv::Op::OpFSub, Type::F64, a.id, b.id)}; }
  F32 mul(F32 a, F32 b) { return {farith(spv::Op::OpFMul, Type::F32, a.id, b.id)}; }
  F64 mul(F64 a, F64 b) { return {farith(spv::Op::OpFMul, Type::F64, a.id, b.id)}; }
  F32 fma(F32 a, F32 b, F32 c);
  F64 fma(F64 a, F64 b, F64 c);
  F32 div(F32 a, F32 b);
  F64 div(F64 a, F64 b);
  F32 recip(F32 a) { return div(c(1.0f), a); }  // 1 / a, correctly rounded
  F64 recip(F64 a) { return div(c(1.0), a); }
  F32 sqrt(F32 a);
  F64 sqrt(F64 a);
  // Seeds for seeded_div_sqrt.hpp: ~1/a for a in [1, 2) and ~1/sqrt(a) for a in [1, 4), from the
  // device's f32 OpFDiv (2.5 ULP) and GLSL.std.450 InverseSqrt (2 ULP), f64 through f32.
  F32 approx_recip(F32 a);
  F64 approx_recip(F64 a);
  F32 approx_rsqrt(F32 a);
  F64 approx_rsqrt(F64 a);
  F32 neg(F32 a) { return {unary(UnOp::Neg, Type::F32, a.id)}; }
  F64 neg(F64 a) { return {unary(UnOp::Neg, Type::F64, a.id)}; }
  F32 abs(F32 a) { return {unary(UnOp::Abs, Type::F32, a.id)}; }
  F64 abs(F64 a) { return {unary(UnOp::Abs, Type::F64, a.id)}; }
  F32 rint(F32 a) { return {unary(UnOp::Round, Type::F32, a.id)}; }
  F64 rint(F64 a) { return {unary(UnOp::Round, Type::F64, a.id)}; }

  // ---- float comparisons (false when either operand is NaN) ----
  Pred lt(F32 a, F32 b) { return {compare(BinOp::Lt, Type::F32, a.id, b.id)}; }
  Pred lt(F64 a, F64 b) { return {compare(BinOp::Lt, Type::F64, a.id, b.id)}; }
  Pred le(F32 a, F32 b) { return {compare(BinOp::Le, Type::F32, a.id, b.id)}; }
  Pred le(F64 a, F64 b) { return {compare(BinOp::Le, Type::F64, a.id, b.id)}; }
  Pred gt(F32 a, F32 b) { return {compare(BinOp::Gt, Type::F32, a.id, b.id)}; }
  Pred gt(F64 a, F64 b) { return {compare(BinOp::Gt, Type::F64, a.id, b.id)}; }
  Pred ge(F32 a, F32 b) { return {compare(BinOp::Ge, Type::F32, a.id, b.id)}; }
  Pred ge(F64 a, F64 b) { return {compare(BinOp::Ge, Type::F64, a.id, b.id)}; }
  Pred eq(F32 a, F32 b) { return {compare(BinOp::Eq, Type::F32, a.id, b.id)}; }
  Pred eq(F64 a, F64 b) { return {compare(BinOp::Eq, Type::F64, a.id, b.id)}; }
  Pred is_nan(F32 a) { return {e_.is_nan({a.id, Type::F32})}; }
  Pred is_nan(F64 a) { return {e_.is_nan({a.id, Type::F64})}; }

  // ---- selection ----
  F32 sel(Pred p, F32 a, F32 b) { return {select(Type::F32, p.id, a.id, b.id)}; }
  F64 sel(Pred p, F64 a, F64 b) { return {select(Type::F64, p.id, a.id, b.id)}; }
  B32 sel(Pred p, B32 a, B32 b) { return {select(Type::U32, p.id, a.id, b.id)}; }
  B64 sel(Pred p, B64 a, B64 b) { return {select(Type::U64, p.id, a.id, b.id)}; }

  // ---- conversions ----
  F32 to_f32(F64 a) { return {cast(Type::F32, Type::F64, a.id)}; }
  F64 to_f64(F32 a) { return {cast(Type::F64, Type::F32, a.id)}; }
  // The device's OpFConvert alone (no NaN canonicalisation, no exact widening on the bits): for
  // wide_fma.hpp, which gives it only normal or zero f32 operands and results (no denormals).
  F64 fconvert(F32 a) { return {e_.fop(spv::Op::OpFConvert, ctx_.type(Type::F64), {a.id})}; }
  F32 fconvert(F64 a) { return {e_.fop(spv::Op::OpFConvert, ctx_.type(Type::F32), {a.id})}; }
  B32 to_s32(F32 a) { return {cast(Type::I32, Type::F32, a.id)}; }
  B32 to_s32(F64 a) { return {cast(Type::I32, Type::F64, a.id)}; }
  F32 s32_to_f32(B32 a) { return {cast(Type::F32, Type::I32, a.id)}; }
  F64 s32_to_f64(B32 a) { return {cast(Type::F64, Type::I32, a.id)}; }
  F64 u64_to_f64(B64 a) { return {cast(Type::F64, Type::U64, a.id)}; }
  B32 bits(F32 a) { return {e_.bitcast(ctx_.uint(32), a.id)}; }
  B64 bits(F64 a) { return {e_.bitcast(ctx_.uint(64), a.id)}; }
  F32 f32_from_bits(B32 a) { return {e_.bitcast(ctx_.type(Type::F32), a.id)}; }
  F64 f64_from_bits(B64 a) { return {e_.bitcast(ctx_.type(Type::F64), a.id)}; }
  B32 lo32(B64 a) { return {op(spv::Op::OpUConvert, ctx_.uint(32), {a.id})}; }
  B32 hi32(B64 a) { return lo32(shr_u(a, u32(32))); }
  B64 pack64(B32 lo, B32 hi) { return or_(shl(zext64(hi), u32(32)), zext64(lo)); }
  B64 zext64(B32 a) { return {op(spv::Op::OpUConvert, ctx_.uint(64), {a.id})}; }

  // ---- integers (shift amounts >= the width: 0, or the sign for shr_s) ----
  B32 add(B32 a, B32 b) { return {iop(spv::Op::OpIAdd, 32, a.id, b.id)}; }
  B32 sub(B32 a, B32 b) { return {iop(spv::Op::OpISub, 32, a.id, b.id)}; }
  B32 mul_lo(B32 a, B32 b) { return {iop(spv::Op::OpIMul, 32, a.id, b.id)}; }
  B32 and_(B32 a, B32 b) { return {iop(spv::Op::OpBitwiseAnd, 32, a.id, b.id)}; }
  B32 or_(B32 a, B32 b) { return {iop(spv::Op::OpBitwiseOr, 32, a.id, b.id)}; }
  B32 xor_(B32 a, B32 b) { return {iop(spv::Op::OpBitwiseXor, 32, a.id, b.id)}; }
  B32 shl(B32 a, B32 n) { return {shift(spv::Op::OpShiftLeftLogical, 32, a.id, n.id)}; }
  B32 shr_u(B32 a, B32 n) { return {shift(spv::Op::OpShiftRightLogical, 32, a.id, n.id)}; }
  B32 shr_s(B32 a, B32 n) { return {shift(spv::Op::OpShiftRightArithmetic, 32, a.id, n.id)}; }
  Pred eq(B32 a, B32 b) { return {e_.ieq(a.id, b.id)}; }
  Pred ne(B32 a, B32 b) { return {e_.ine(a.id, b.id)}; }
  Pred lt_u(B32 a, B32 b) { return {e_.ult(a.id, b.id)}; }
  Pred lt_s(B32 a, B32 b) { return {e_.slt(a.id, b.id)}; }

  B64 add(B64 a, B64 b) { return {iop(spv::Op::OpIAdd, 64, a.id, b.id)}; }
  B64 sub(B64 a, B64 b) { return {iop(spv::Op::OpISub, 64, a.id, b.id)}; }
  B64 mul_lo(B64 a, B64 b) { return {iop(spv::Op::OpIMul, 64, a.id, b.id)}; }
  B64 mul_hi_u(B64 a, B64 b);
  B64 and_(B64 a, B64 b) { return {iop(spv::Op::OpBitwiseAnd, 64, a.id, b.id)}; }
  B64 or_(B64 a, B64 b) { return {iop(spv::Op::OpBitwiseOr, 64, a.id, b.id)}; }
  B64 xor_(B64 a, B64 b) { return {iop(spv::Op::OpBitwiseXor, 64, a.id, b.id)}; }
  B64 shl(B64 a, B32 n) { return {shift(spv::Op::OpShiftLeftLogical, 64, a.id, n.id)}; }
  B64 shr_u(B64 a, B32 n) { return {shift(spv::Op::OpShiftRightLogical, 64, a.id, n.id)}; }
  B64 shr_s(B64 a, B32 n) { return {shift(spv::Op::OpShiftRightArithmetic, 64, a.id, n.id)}; }
  B32 clz(B64 a) { return {e_.int_unary(UnOp::Clz, {a.id, Type::U64}).id}; }
  Pred eq(B64 a, B64 b) { return {e_.ieq(a.id, b.id)}; }
  Pred ne(B64 a, B64 b) { return {e_.ine(a.id, b.id)}; }
  Pred lt_u(B64 a, B64 b) { return {e_.ult(a.id, b.id)}; }
  Pred lt_s(B64 a, B64 b) { return {e_.slt(a.id, b.id)}; }

  // ---- predicates ----
  Pred and_(Pred a, Pred b) { return {e_.land(a.id, b.id)}; }
  Pred or_(Pred a, Pred b) { return {e_.lor(a.id, b.id)}; }
  Pred not_(Pred a) { return {e_.lnot(a.id)}; }

  // ---- module data: word `index` of a table (a clamped index; the algorithms stay in range) ----
  B64 load(const vyre::math::DataTable& table, B32 index);

  // ---- structured control flow ----
  template <class T>
  Var<T> var(T init) {
    const Id pointer = f_.local(type_of<T>());
    f_.store(pointer, init.id);
    return {pointer};
  }
  template <class T>
  T get(const Var<T>& v) { return {f_.load(type_of<T>(), v.pointer)}; }
  template <class T>
  void set(Var<T>& v, T value) { f_.store(v.pointer, value.id); }
  template <class Then>
  void if_(Pred p, Then&& then) { e_.if_then(p.id, std::forward<Then>(then)); }

 private:
  template <class T>
  Id type_of();
  Id op(spv::Op o, Id type, std::initializer_list<std::uint32_t> operands) { return f_.op(o, type, operands); }
  Id farith(spv::Op o, Type t, Id a, Id b) { return e_.fop(o, ctx_.type(t), {a, b}); }
  Id iop(spv::Op o, std::uint32_t width, Id a, Id b) { return op(o, ctx_.uint(width), {a, b}); }
  Id shift(spv::Op o, std::uint32_t width, Id a, Id n);
  Id unary(UnOp o, Type t, Id a) { return e_.float_unary(o, {a, t}).id; }
  Id compare(BinOp o, Type t, Id a, Id b) { return e_.float_binary(o, {a, t}, {b, t}).id; }
  Id select(Type t, Id p, Id a, Id b) { return e_.select(ctx_.type(t), p, a, b); }
  Id cast(Type to, Type from, Id a) { return e_.cast(to, {a, from}).id; }

  codegen::ModuleContext& ctx_;
  spirv::Function& f_;
  codegen::Emitter e_;
  bool normal_fma_ = false;
};

template <> inline Id SpirvBackend::type_of<SpirvBackend::F32>() { return ctx_.type(Type::F32); }
template <> inline Id SpirvBackend::type_of<SpirvBackend::F64>() { return ctx_.type(Type::F64); }
template <> inline Id SpirvBackend::type_of<SpirvBackend::B32>() { return ctx_.uint(32); }
template <> inline Id SpirvBackend::type_of<SpirvBackend::B64>() { return ctx_.uint(64); }
template <> inline Id SpirvBackend::type_of<SpirvBackend::Pred>() { return ctx_.bool_type(); }

}  // namespace vyre::vulkan::math
