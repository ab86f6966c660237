#include "math/spirv_backend.hpp"

#include <bit>

#include "math/library.hpp"

namespace vyre::vulkan::math {

SpirvBackend::F32 SpirvBackend::c(float v) { return {ctx_.module().constant(ctx_.type(Type::F32), std::bit_cast<std::uint32_t>(v))}; }
SpirvBackend::F64 SpirvBackend::c(double v) { return {ctx_.module().constant(ctx_.type(Type::F64), std::bit_cast<std::uint64_t>(v))}; }

SpirvBackend::F32 SpirvBackend::fma(F32 a, F32 b, F32 c) {
  if (ctx_.native_fma(Type::F32)) return {ctx_.fused_fma(f_, Type::F32, a.id, b.id, c.id)};
  if (normal_fma_ && ctx_.features().fma_source32 == DeviceFeatures::FmaSource::Wide)
    return {f_.call(ctx_.type(Type::F32), wide_fma_normal_function(ctx_), {a.id, b.id, c.id})};
  return {f_.call(ctx_.type(Type::F32), exact_function(ctx_, ExactOp::Fma, Type::F32), {a.id, b.id, c.id})};
}
SpirvBackend::F64 SpirvBackend::fma(F64 a, F64 b, F64 c) {
  if (ctx_.native_fma(Type::F64)) return {ctx_.fused_fma(f_, Type::F64, a.id, b.id, c.id)};
  return {f_.call(ctx_.type(Type::F64), exact_function(ctx_, ExactOp::Fma, Type::F64), {a.id, b.id, c.id})};
}
SpirvBackend::F32 SpirvBackend::div(F32 a, F32 b) {
  return {f_.call(ctx_.type(Type::F32), exact_function(ctx_, ExactOp::Div, Type::F32), {a.id, b.id})};
}
SpirvBackend::F64 SpirvBackend::div(F64 a, F64 b) {
  return {f_.call(ctx_.type(Type::F64), exact_function(ctx_, ExactOp::Div, Type::F64), {a.id, b.id})};
}
SpirvBackend::F32 SpirvBackend::sqrt(F32 a) {
  return {f_.call(ctx_.type(Type::F32), exact_function(ctx_, ExactOp::Sqrt, Type::F32), {a.id})};
}
SpirvBackend::F64 SpirvBackend::sqrt(F64 a) {
  return {f_.call(ctx_.type(Type::F64), exact_function(ctx_, ExactOp::Sqrt, Type::F64), {a.id})};
}

SpirvBackend::F32 SpirvBackend::approx_recip(F32 a) {
  return {op(spv::Op::OpFDiv, ctx_.type(Type::F32), {c(1.0f).id, a.id})};
}
SpirvBackend::F64 SpirvBackend::approx_recip(F64 a) {
  const Id f32 = ctx_.type(Type::F32);
  const Id narrow = op(spv::Op::OpFConvert, f32, {a.id});
  return {op(spv::Op::OpFConvert, ctx_.type(Type::F64), {op(spv::Op::OpFDiv, f32, {c(1.0f).id, narrow})})};
}
SpirvBackend::F32 SpirvBackend::approx_rsqrt(F32 a) {
  return {f_.glsl(ctx_.type(Type::F32), GLSLstd450InverseSqrt, {a.id})};
}
SpirvBackend::F64 SpirvBackend::approx_rsqrt(F64 a) {
  const Id f32 = ctx_.type(Type::F32);
  const Id narrow = op(spv::Op::OpFConvert, f32, {a.id});
  return {op(spv::Op::OpFConvert, ctx_.type(Type::F64), {f_.glsl(f32, GLSLstd450InverseSqrt, {narrow})})};
}

SpirvBackend::B64 SpirvBackend::mul_hi_u(B64 a, B64 b) {
  const Id u64 = ctx_.uint(64);
  const Id pair = op(spv::Op::OpUMulExtended, ctx_.extended_pair(u64), {a.id, b.id});
  return {op(spv::Op::OpCompositeExtract, u64, {pair, 1})};
}

Id SpirvBackend::shift(spv::Op o, std::uint32_t width, Id a, Id n) {
  const Id t = ctx_.uint(width);
  const Id masked = op(spv::Op::OpBitwiseAnd, ctx_.uint(32), {n, ctx_.u32(width - 1)});
  const Id amount = width == 64 ? op(spv::Op::OpUConvert, t, {masked}) : masked;
  const Id shifted = op(o, t, {a, amount});
  // Out of range: 0, or the sign spread over every bit for an arithmetic right shift.
  Id saturated = ctx_.module().constant(t, 0);
  if (o == spv::Op::OpShiftRightArithmetic) {
    const Id last = width == 64 ? ctx_.u64(63) : ctx_.u32(31);
    saturated = op(spv::Op::OpShiftRightArithmetic, t, {a, last});
  }
  const Id too_far = op(spv::Op::OpUGreaterThanEqual, ctx_.bool_type(), {n, ctx_.u32(width)});
  return e_.select(t, too_far, saturated, shifted);
}

SpirvBackend::B64 SpirvBackend::load(const vyre::math::DataTable& table, B32 index) {
  const Id u64 = ctx_.uint(64);
  const std::uint32_t size = static_cast<std::uint32_t>(table.words.size());
  const std::string name(table.name);
  Id variable;
  if (auto found = ctx_.helper(name)) {
    variable = *found;
  } else {
    spirv::Module& m = ctx_.module();
    std::vector<Id> words;
    for (std::uint64_t w : table.words) words.push_back(ctx_.u64(w));
    const Id array = m.array_type(u64, size);
    variable = m.variable(m.pointer_type(spv::StorageClass::Private, array), spv::StorageClass::Private,
                          m.constant_composite(array, words));
    m.name(variable, name);
    ctx_.add_helper(name, variable);
    ctx_.add_interface(variable);
  }
  const Id in_range = e_.ult(index.id, ctx_.u32(size));
  const Id safe = e_.select(ctx_.uint(32), in_range, index.id, ctx_.u32(0));
  const Id pointer = op(spv::Op::OpAccessChain, ctx_.pointer(spv::StorageClass::Private, u64), {variable, safe});
  return {f_.load(u64, pointer)};
}

}  // namespace vyre::vulkan::math
