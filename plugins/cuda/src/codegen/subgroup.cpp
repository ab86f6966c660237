// Subgroup operations on a full warp (SEMANTICS: all 32 lanes are active at the op, so the member
// mask is 0xffffffff). 64-bit values cross lanes as two 32-bit halves.
//   ballot  vote.sync.ballot.b32
//   shuffle shfl.sync.idx.b32 from lane `lane % 32`
//   reduce  redux.sync for 32-bit integer add/min/max/and/or/xor where the target has it (sm_80+);
//           otherwise SPEC's butterfly: for offset 16, 8, 4, 2, 1: v = op(v, shuffle_xor(v, offset))
#include "codegen/expressions.hpp"
#include "codegen/target_info.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda::codegen {

namespace {

constexpr const char* kFullMask = "0xffffffff";
constexpr std::uint32_t kButterflyOffsets[] = {16, 8, 4, 2, 1};

// shfl.sync.<mode>.b32 of a 32-bit register (b32 or f32) with lane operand `lane`.
std::string shuffle_word(FunctionEmitter& f, std::string_view mode, RegClass cls,
                         const std::string& word, const std::string& lane) {
  std::string out = f.reg(cls);
  f.ins("shfl.sync.{}.b32 {}, {}, {}, 0x1f, {};", mode, out, word, lane, kFullMask);
  return out;
}

Value shuffle_value(FunctionEmitter& f, std::string_view mode, const Value& value,
                    const std::string& lane) {
  if (!is_wide(value.type))
    return Value{shuffle_word(f, mode, reg_class(value.type), value.reg, lane), value.type};
  std::string low = f.reg(RegClass::B32);
  std::string high = f.reg(RegClass::B32);
  f.ins("mov.b64 {{{}, {}}}, {};", low, high, value.reg);
  std::string low_out = shuffle_word(f, mode, RegClass::B32, low, lane);
  std::string high_out = shuffle_word(f, mode, RegClass::B32, high, lane);
  Value v = f.value(value.type);
  f.ins("mov.b64 {}, {{{}, {}}};", v.reg, low_out, high_out);
  return v;
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

// The redux.sync operation for `op` on `t`, or "" when redux.sync cannot do it.
std::string redux_operation(ReduceOp op, Type t) {
  if (t != Type::U32 && t != Type::I32) return {};
  std::string_view arith = t == Type::I32 ? "s32" : "u32";
  switch (op) {
    case ReduceOp::Add: return fmt::format("add.{}", arith);
    case ReduceOp::Min: return fmt::format("min.{}", arith);
    case ReduceOp::Max: return fmt::format("max.{}", arith);
    case ReduceOp::And: return "and.b32";
    case ReduceOp::Or: return "or.b32";
    case ReduceOp::Xor: return "xor.b32";
    case ReduceOp::Mul: return {};
  }
  return {};
}

Value butterfly(FunctionEmitter& f, ReduceOp op, const Value& value) {
  Value v = value;
  for (std::uint32_t offset : kButterflyOffsets) {
    Value other = shuffle_value(f, "bfly", v, std::to_string(offset));
    v = emit_binary(f, reduce_bin_op(op), v, other);
  }
  return v;
}

}  // namespace

Value emit_ballot(FunctionEmitter& f, const Value& cond) {
  Value v = f.value(Type::U32);
  f.ins("vote.sync.ballot.b32 {}, {}, {};", v.reg, cond.reg, kFullMask);
  return v;
}

Value emit_shuffle(FunctionEmitter& f, const Value& value, const Value& lane) {
  std::string source = f.reg(RegClass::B32);
  f.ins("and.b32 {}, {}, 31;", source, lane.reg);
  return shuffle_value(f, "idx", value, source);
}

Value emit_subgroup_reduce(FunctionEmitter& f, ReduceOp op, const Value& value) {
  std::string operation = redux_operation(op, value.type);
  if (operation.empty() || !has_redux_sync(f.target())) return butterfly(f, op, value);
  Value v = f.value(value.type);
  f.ins("redux.sync.{} {}, {}, {};", operation, v.reg, value.reg, kFullMask);
  return v;
}

}  // namespace vyre::cuda::codegen
