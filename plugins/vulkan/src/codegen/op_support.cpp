// Which catalog ops the emitter lowers (declared at registration: all of them), and which of them a
// given device can run (checked at compile): ops on 64-bit types need shaderInt64 (and f64
// shaderFloat64), narrow storage the 8/16-bit storage features, 64-bit atomics the int64 atomic
// features, subgroup ops 32-wide subgroups, and the float operations computed with 64-bit integer
// arithmetic (div, sqrt, reciprocal, inverse_sqrt, transcendentals, and fma where the device has no
// fused fma for the width) shaderInt64.
#include "codegen/lowering.hpp"

namespace vyre::vulkan {

namespace {

bool is_wide(Type t) { return t == Type::U64 || t == Type::I64 || t == Type::F64; }

// Float operations computed by the exact integer algorithms or the math library, which work on
// 64-bit integers whatever the float width.
bool needs_int64_arithmetic(const OpInfo& op, const DeviceFeatures& f) {
  if (op.family == OpFamily::Fma) return !(op.type == Type::F32 ? f.fma32 : f.fma64);
  if (op.family == OpFamily::Bin) return is_float(op.type) && op.bin_op == BinOp::Div;
  if (op.family != OpFamily::Un || !is_float(op.type)) return false;
  return op.un_op == UnOp::Sqrt || op.un_op == UnOp::Reciprocal || op.un_op == UnOp::InverseSqrt ||
         static_cast<int>(op.un_op) >= static_cast<int>(UnOp::Exp);
}

}  // namespace

DeviceFeatures DeviceFeatures::all() {
  DeviceFeatures f;
  f.float64 = f.int64 = f.int64_buffer_atomics = f.int64_shared_atomics = true;
  f.storage8 = f.storage16 = f.subgroup32 = true;
  f.denorm_preserve32 = f.denorm_preserve64 = f.rte32 = f.rte64 = true;
  f.signed_zero_inf_nan32 = f.signed_zero_inf_nan64 = true;
  f.set_fma(Type::F32, FmaSource::Extension);
  f.set_fma(Type::F64, FmaSource::Extension);
  f.seeded_div_sqrt32 = f.seeded_div_sqrt64 = true;
  return f;
}

void DeviceFeatures::set_fma(Type t, FmaSource source) {
  const bool fused = source == FmaSource::Extension || source == FmaSource::Probe;
  if (t == Type::F32) {
    fma32 = fused;
    fma_source32 = source;
  } else {
    fma64 = fused;
    fma_source64 = source;
  }
}

const char* fma_source_name(DeviceFeatures::FmaSource source) {
  switch (source) {
    case DeviceFeatures::FmaSource::Extension: return "extension";
    case DeviceFeatures::FmaSource::Probe: return "probe";
    case DeviceFeatures::FmaSource::Wide: return "wide";
    case DeviceFeatures::FmaSource::Emulation: break;
  }
  return "emulation";
}

bool emits(const OpInfo&) { return true; }

bool device_supports(const OpInfo& op, const DeviceFeatures& f) {
  if (!emits(op)) return false;
  // f64 values are handled through their 64-bit integer bits.
  auto type_ok = [&](Type t) {
    if (t == Type::F64) return f.float64 && f.int64;
    if (is_wide(t)) return f.int64;
    return true;
  };
  if (needs_int64_arithmetic(op, f) && !f.int64) return false;
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
