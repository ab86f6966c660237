// Which catalog ops the emitter lowers (declared at registration), and which of them a given
// device can run (checked at compile). Grows as the emitter does: an op appears here only once it
// is implemented exactly as SPEC §2 defines it.
#include "codegen/lowering.hpp"

namespace vyre::vulkan {

namespace {

bool is_wide(Type t) { return t == Type::U64 || t == Type::I64 || t == Type::F64; }

// The float operators the emitter implements so far.
bool float_un_op_emitted(UnOp op) {
  switch (op) {
    case UnOp::Neg: case UnOp::Abs: case UnOp::Sign: case UnOp::Floor: case UnOp::Ceil:
    case UnOp::Trunc: case UnOp::Round: case UnOp::IsNan: case UnOp::IsInf: case UnOp::IsFinite:
      return true;
    default: return false;
  }
}

}  // namespace

DeviceFeatures DeviceFeatures::all() {
  DeviceFeatures f;
  f.float64 = f.int64 = f.int64_buffer_atomics = f.int64_shared_atomics = true;
  f.storage8 = f.storage16 = f.subgroup32 = true;
  f.denorm_preserve32 = f.denorm_preserve64 = f.rte32 = f.rte64 = true;
  f.signed_zero_inf_nan32 = f.signed_zero_inf_nan64 = true;
  return f;
}

bool emits(const OpInfo& op) {
  switch (op.family) {
    case OpFamily::Bin:
      return !is_float(op.type) || op.bin_op != BinOp::Div;
    case OpFamily::Un:
      return !is_float(op.type) || float_un_op_emitted(op.un_op);
    case OpFamily::Fma: return false;
    default: return true;
  }
}

bool device_supports(const OpInfo& op, const DeviceFeatures& f) {
  if (!emits(op)) return false;
  // f64 values are handled through their 64-bit integer bits.
  auto type_ok = [&](Type t) {
    if (t == Type::F64) return f.float64 && f.int64;
    if (is_wide(t)) return f.int64;
    return true;
  };
  for (Type t : op.operands)
    if (!type_ok(t)) return false;
  if (op.result && !type_ok(*op.result)) return false;
  switch (op.family) {
    case OpFamily::Load: case OpFamily::Store:
      if (byte_size(op.type) == 1) return f.storage8;
      if (byte_size(op.type) == 2) return f.storage16;
      return type_ok(op.type);
    case OpFamily::Atomic:
      if (op.type == Type::U64) return op.workgroup_atomic ? f.int64_shared_atomics : f.int64_buffer_atomics;
      return true;
    case OpFamily::Subgroup: return f.subgroup32;
    case OpFamily::Cast: case OpFamily::Bitcast: return type_ok(op.from) && type_ok(op.type);
    default: return true;
  }
}

std::vector<std::string> emitted_ops() {
  std::vector<std::string> ids;
  for (const OpInfo& op : op_catalog())
    if (emits(op)) ids.push_back(op.id);
  return ids;
}

}  // namespace vyre::vulkan
