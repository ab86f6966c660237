// Subgroup operations on 32-lane subgroups (SPEC §2 "Subgroups"). The pipeline requires subgroup
// size 32 with full subgroups and the entry maps lanes to consecutive local ids (lowering.hpp),
// so the hardware lane is the vyre lane. 64-bit values move as two 32-bit halves (no
// shaderSubgroupExtendedTypes needed). reduce is the butterfly SPEC fixes for every type.
#include "codegen/emitter.hpp"
#include "vyre/error.hpp"

namespace vyre::vulkan::codegen {

namespace {

Id subgroup_scope(Emitter& e) { return e.ctx().u32(spirv::w(spv::Scope::Subgroup)); }

// shuffle (lane) or shuffle_xor (mask) of a 32- or 64-bit value.
Id shuffle_op(Emitter& e, spv::Op o, const Value& v, Id lane) {
  ModuleContext& ctx = e.ctx();
  const Id u32 = ctx.uint(32);
  if (bit_width(v.type) == 32) {
    const bool f = v.type == Type::F32;
    const Id bits = f ? e.bitcast(u32, v.id) : v.id;
    const Id r = e.op(o, u32, {subgroup_scope(e), bits, lane});
    return f ? e.bitcast(ctx.type(Type::F32), r) : r;
  }
  const Id u64 = ctx.uint(64);
  const Id bits = v.type == Type::F64 ? e.bitcast(u64, v.id) : v.id;
  const Id lo = e.op(spv::Op::OpUConvert, u32, {bits});
  const Id hi = e.op(spv::Op::OpUConvert, u32, {e.op(spv::Op::OpShiftRightLogical, u64, {bits, ctx.u64(32)})});
  const Id rlo = e.op(spv::Op::OpUConvert, u64, {e.op(o, u32, {subgroup_scope(e), lo, lane})});
  const Id rhi = e.op(spv::Op::OpUConvert, u64, {e.op(o, u32, {subgroup_scope(e), hi, lane})});
  const Id r = e.op(spv::Op::OpBitwiseOr, u64, {e.op(spv::Op::OpShiftLeftLogical, u64, {rhi, ctx.u64(32)}), rlo});
  return v.type == Type::F64 ? e.bitcast(ctx.type(Type::F64), r) : r;
}

BinOp reduce_bin_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Add: return BinOp::Add;
    case ReduceOp::Mul: return BinOp::Mul;
    case ReduceOp::Min: return BinOp::Min;
    case ReduceOp::Max: return BinOp::Max;
    case ReduceOp::And: return BinOp::And;
    case ReduceOp::Or: return BinOp::Or;
    case ReduceOp::Xor: return BinOp::Xor;
  }
  return BinOp::Add;
}

}  // namespace

Value Emitter::subgroup(const Expr& ex) {
  const Id u32 = ctx_.uint(32);
  switch (ex.kind) {
    case ExprKind::SubgroupBallot: {
      const Value cond = expr(ex.args.at(0));
      const Id mask = op(spv::Op::OpGroupNonUniformBallot, ctx_.module().vector_type(u32, 4),
                         {subgroup_scope(*this), cond.id});
      return {op(spv::Op::OpCompositeExtract, u32, {mask, 0}), Type::U32};
    }
    case ExprKind::SubgroupShuffle: {
      const Value v = expr(ex.args.at(0));
      const Value lane = expr(ex.args.at(1));
      const Id l = op(spv::Op::OpBitwiseAnd, u32, {lane.id, ctx_.u32(31)});
      return {shuffle_op(*this, spv::Op::OpGroupNonUniformShuffle, v, l), v.type};
    }
    case ExprKind::SubgroupReduce: {
      Value v = expr(ex.args.at(0));
      const BinOp b = reduce_bin_op(ex.reduce_op);
      for (std::uint32_t offset : {16u, 8u, 4u, 2u, 1u}) {
        const Value other{shuffle_op(*this, spv::Op::OpGroupNonUniformShuffleXor, v, ctx_.u32(offset)), v.type};
        v = is_float(v.type) ? float_binary(b, v, other) : int_binary(b, v, other);
      }
      return v;
    }
    default: break;
  }
  fail(VYRE_ERR_INTERNAL, "SPIR-V emitter: not a subgroup expression", "report this emitter bug");
}

}  // namespace vyre::vulkan::codegen
