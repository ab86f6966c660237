// Loads, stores and atomics with SPEC §2's bounds: an out-of-bounds load yields zero, a store is
// dropped, an atomic yields 0 and changes nothing. An i32 index below zero is out of bounds. The
// bound is the element count bound at the buffer's binding (a push constant) or a workgroup
// buffer's declared count. Loads read a clamped index (every binding holds at least one element,
// lowering.hpp) and select zero; stores and atomics run inside a branch.
//
// Narrow storage types travel as their bit pattern in a u32 ("bits32"): 8/16-bit storage buffers
// convert at the access; workgroup buffers keep one 32-bit word per narrow element.
#include "codegen/emitter.hpp"
#include "vyre/error.hpp"

namespace vyre::vulkan::codegen {

namespace {

spv::StorageClass storage_class(const BufferVar& b) {
  return b.workgroup ? spv::StorageClass::Workgroup : spv::StorageClass::StorageBuffer;
}

struct Access {
  Emitter& e;
  const BufferVar& b;

  Id length() {
    if (b.workgroup) return e.ctx().u32(b.count);
    return e.ctx().push_word(e.fn(), kPushHeaderWords + b.slot);
  }

  Id in_bounds(const Value& index) {
    Id ok = e.ult(index.id, length());
    if (index.type == Type::I32) ok = e.land(ok, e.lnot(e.slt(index.id, e.ctx().u32(0))));
    return ok;
  }

  Id pointer(Id index) {
    const Id ptr_t = e.ctx().pointer(storage_class(b), b.raw_type);
    if (b.workgroup) return e.op(spv::Op::OpAccessChain, ptr_t, {b.variable, index});
    return e.op(spv::Op::OpAccessChain, ptr_t, {b.variable, e.ctx().u32(0), index});
  }

  bool narrow() const { return b.element != Type::Bool && byte_size(b.element) < 4; }

  // The raw element as a value of the IR.
  Value widen(Id raw) {
    const Id u32 = e.ctx().uint(32);
    switch (b.element) {
      case Type::Bool: return {e.ine(raw, e.ctx().u32(0)), Type::Bool};
      case Type::F32: case Type::F64: return {e.bitcast(e.ctx().type(b.element), raw), b.element};
      case Type::U32: case Type::I32: case Type::U64: case Type::I64: return {raw, b.element};
      default: break;
    }
    const Id bits = b.workgroup ? raw : e.op(spv::Op::OpUConvert, u32, {raw});
    switch (b.element) {
      case Type::U8: case Type::U16: return {bits, Type::U32};
      case Type::I8: case Type::I16: {
        const Id shift = e.ctx().u32(32 - byte_size(b.element) * 8);
        const Id up = e.op(spv::Op::OpShiftLeftLogical, u32, {bits, shift});
        return {e.op(spv::Op::OpShiftRightArithmetic, u32, {up, shift}), Type::I32};
      }
      case Type::F16: return {e.f16_bits_to_f32(bits), Type::F32};
      case Type::BF16: return {e.bf16_bits_to_f32(bits), Type::F32};
      default: break;
    }
    fail(VYRE_ERR_INTERNAL, "SPIR-V emitter: load of " + std::string(type_name(b.element)), "report this emitter bug");
  }

  // An IR value as the raw element (narrowing per SPEC §2).
  Id narrow_value(const Value& v) {
    const Id u32 = e.ctx().uint(32);
    Id bits;
    switch (b.element) {
      case Type::Bool: return e.select(u32, v.id, e.ctx().u32(1), e.ctx().u32(0));
      case Type::F32: case Type::F64: return e.canonical_bits(v);
      case Type::U32: case Type::I32: case Type::U64: case Type::I64: return v.id;
      case Type::U8: case Type::I8: bits = e.op(spv::Op::OpBitwiseAnd, u32, {v.id, e.ctx().u32(0xFF)}); break;
      case Type::U16: case Type::I16: bits = e.op(spv::Op::OpBitwiseAnd, u32, {v.id, e.ctx().u32(0xFFFF)}); break;
      case Type::F16: bits = e.f32_to_f16_bits(v); break;
      case Type::BF16: bits = e.f32_to_bf16_bits(v); break;
      default:
        fail(VYRE_ERR_INTERNAL, "SPIR-V emitter: store of " + std::string(type_name(b.element)), "report this emitter bug");
    }
    return b.workgroup ? bits : e.op(spv::Op::OpUConvert, b.raw_type, {bits});
  }
};

}  // namespace

Value Emitter::load(const Expr& ex) {
  Access a{*this, ctx_.buffer(ex.name)};
  const Value index = expr(ex.args.at(0));
  const Id ok = a.in_bounds(index);
  const Id safe = select(ctx_.uint(32), ok, index.id, ctx_.u32(0));
  const Value v = a.widen(f_.load(a.b.raw_type, a.pointer(safe)));
  return {select(ctx_.type(v.type), ok, v.id, ctx_.zero(v.type)), v.type};
}

void Emitter::store(const Node& n) {
  Access a{*this, ctx_.buffer(n.name)};
  const Value index = expr(n.exprs.at(0));
  const Value value = expr(n.exprs.at(1));
  const Id raw = a.narrow_value(value);
  if_then(a.in_bounds(index), [&] { f_.store(a.pointer(index.id), raw); });
}

Value Emitter::buf_len(const std::string& buffer) {
  Access a{*this, ctx_.buffer(buffer)};
  return {a.length(), Type::U32};
}

Value Emitter::atomic(const Expr& ex) {
  Access a{*this, ctx_.buffer(ex.name)};
  const Value index = expr(ex.args.at(0));
  const Value value = expr(ex.args.at(1));
  Value expected{};
  if (ex.atomic_op == AtomicOp::CompareExchange) expected = expr(ex.args.at(2));
  const Type t = value.type;
  const Id tt = ctx_.type(t);
  const bool is_signed = is_signed_int(t);
  const Id scope = ctx_.u32(spirv::w(a.b.workgroup ? spv::Scope::Workgroup : spv::Scope::Device));
  const Id relaxed = ctx_.u32(0);
  if (bit_width(t) == 64) ctx_.module().capability(spv::Capability::Int64Atomics);
  const Id result = f_.local(tt);
  f_.store(result, ctx_.zero(t));
  if_then(a.in_bounds(index), [&] {
    const Id ptr = a.pointer(index.id);
    spv::Op o = spv::Op::OpAtomicIAdd;
    switch (ex.atomic_op) {
      case AtomicOp::Add: o = spv::Op::OpAtomicIAdd; break;
      case AtomicOp::And: o = spv::Op::OpAtomicAnd; break;
      case AtomicOp::Or: o = spv::Op::OpAtomicOr; break;
      case AtomicOp::Xor: o = spv::Op::OpAtomicXor; break;
      case AtomicOp::Min: o = is_signed ? spv::Op::OpAtomicSMin : spv::Op::OpAtomicUMin; break;
      case AtomicOp::Max: o = is_signed ? spv::Op::OpAtomicSMax : spv::Op::OpAtomicUMax; break;
      case AtomicOp::Exchange: o = spv::Op::OpAtomicExchange; break;
      case AtomicOp::CompareExchange: {
        const Id old = op(spv::Op::OpAtomicCompareExchange, tt, {ptr, scope, relaxed, relaxed, value.id, expected.id});
        f_.store(result, old);
        return;
      }
    }
    f_.store(result, op(o, tt, {ptr, scope, relaxed, value.id}));
  });
  return {f_.load(tt, result), t};
}

}  // namespace vyre::vulkan::codegen
