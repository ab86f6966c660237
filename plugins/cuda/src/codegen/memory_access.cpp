// Element addressing, bounds predicates, and the predicated loads, stores and atomics.
#include "codegen/memory_access.hpp"

#include "codegen/storage_conversion.hpp"
#include "optimize/value_range.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda::codegen {

namespace {

// `index` in [0, count): one unsigned compare, plus a sign test for an i32 index.
std::string bounds_predicate(FunctionEmitter& f, const Value& index, const std::string& count) {
  std::string below = f.reg(RegClass::Pred);
  f.ins("setp.lt.u32 {}, {}, {};", below, index.reg, count);
  if (index.type != Type::I32) return below;
  std::string non_negative = f.reg(RegClass::Pred);
  f.ins("setp.ge.s32 {}, {}, 0;", non_negative, index.reg);
  std::string both = f.reg(RegClass::Pred);
  f.ins("and.pred {}, {}, {};", both, below, non_negative);
  return both;
}

ElementRef global_ref(FunctionEmitter& f, std::size_t buffer, const Value& index, Type storage,
                      bool checked) {
  ElementRef ref{buffer, storage, Space::Global, {}, 0, {}};
  if (checked) ref.in_bounds = bounds_predicate(f, index, f.params.count[buffer]);
  std::string offset = f.reg(RegClass::B64);
  f.ins("mul.wide.u32 {}, {}, {};", offset, index.reg, byte_size(storage));
  ref.address = f.reg(RegClass::B64);
  f.ins("add.s64 {}, {}, {};", ref.address, f.params.pointer[buffer], offset);
  return ref;
}

ElementRef shared_ref(FunctionEmitter& f, std::size_t buffer, const Value& index, Type storage,
                      bool checked) {
  const BufferSlot& slot = f.layout().buffers[buffer];
  ElementRef ref{buffer, storage, Space::Shared, {}, slot.shared_offset, {}};
  if (checked) ref.in_bounds = bounds_predicate(f, index, std::to_string(slot.count));
  std::string offset = f.reg(RegClass::B32);
  f.ins("mul.lo.u32 {}, {}, {};", offset, index.reg, byte_size(storage));
  ref.address = f.reg(RegClass::B32);
  f.ins("add.u32 {}, {}, {};", ref.address, f.params.shared_base, offset);
  return ref;
}

// "@%p " for a checked access, "" for one proved in bounds.
std::string guard(const ElementRef& ref) { return ref.in_bounds.empty() ? "" : "@" + ref.in_bounds + " "; }

std::string operand_address(const ElementRef& ref) {
  if (ref.offset == 0) return "[" + ref.address + "]";
  return "[" + ref.address + "+" + std::to_string(ref.offset) + "]";
}

// The atom operation and type suffix for `op` on elements of `type` (u32, i32 or u64).
std::string atom_operation(AtomicOp op, Type type) {
  bool wide = type == Type::U64;
  std::string_view bits = wide ? "b64" : "b32";
  std::string_view arith = type == Type::I32 ? "s32" : (wide ? "u64" : "u32");
  switch (op) {
    case AtomicOp::Add: return fmt::format("add.{}", arith);
    case AtomicOp::And: return fmt::format("and.{}", bits);
    case AtomicOp::Or: return fmt::format("or.{}", bits);
    case AtomicOp::Xor: return fmt::format("xor.{}", bits);
    case AtomicOp::Min: return fmt::format("min.{}", arith);
    case AtomicOp::Max: return fmt::format("max.{}", arith);
    case AtomicOp::Exchange: return fmt::format("exch.{}", bits);
    case AtomicOp::CompareExchange: return fmt::format("cas.{}", bits);
  }
  return {};
}

}  // namespace

std::string_view space_name(Space space) { return space == Space::Global ? "global" : "shared"; }

std::size_t buffer_index(const FunctionEmitter& f, std::string_view name) {
  if (auto i = f.layout().buffer_names.position(name)) return *i;
  fail(VYRE_ERR_INVALID_PROGRAM, fmt::format("buffer '{}' is not declared", name),
       "validate the program before lowering it; declare the buffer it names");
}

bool needs_bounds_check(const FunctionEmitter& f, const Expr& access) {
  return f.layout().ranges == nullptr || !f.layout().ranges->in_bounds(access);
}

bool needs_bounds_check(const FunctionEmitter& f, const Node& store) {
  return f.layout().ranges == nullptr || !f.layout().ranges->in_bounds(store);
}

ElementRef element_ref(FunctionEmitter& f, std::size_t buffer, const Value& index, bool checked) {
  Type storage = f.program().buffers[buffer].element;
  if (f.layout().buffers[buffer].workgroup) return shared_ref(f, buffer, index, storage, checked);
  return global_ref(f, buffer, index, storage, checked);
}

Value emit_load(FunctionEmitter& f, const ElementRef& ref) {
  StorageAccess access = storage_access(ref.storage);
  std::string raw = f.reg(access.load_class);
  if (!ref.in_bounds.empty())
    f.ins("mov.{} {}, {};", mov_type(access.load_class), raw, zero_immediate(access.load_class));
  f.ins("{}ld.{}.{} {}, {};", guard(ref), space_name(ref.space), access.load_type, raw,
        operand_address(ref));
  return widen_loaded(f, ref.storage, raw);
}

// Workgroup memory never reaches the host: a value loaded from it is observable only through
// operations that canonicalise NaNs themselves (a global store, a Bitcast to an integer, an f32/f64
// cast; docs/SEMANTICS.md "NaN bit patterns are never observable"), so with the optimizer an f32/f64
// store to it keeps the register's bits (no testp/selp per store).
namespace {
bool keeps_nan_payload(const FunctionEmitter& f, const ElementRef& ref) {
  return ref.space == Space::Shared && (ref.storage == Type::F32 || ref.storage == Type::F64) &&
         f.layout().ranges != nullptr;
}
}  // namespace

void emit_store(FunctionEmitter& f, const ElementRef& ref, const Value& value) {
  StorageAccess access = storage_access(ref.storage);
  std::string raw = keeps_nan_payload(f, ref) ? value.reg : narrow_for_store(f, ref.storage, value);
  f.ins("{}st.{}.{} {}, {};", guard(ref), space_name(ref.space), access.store_type,
        operand_address(ref), raw);
}

Value emit_atomic(FunctionEmitter& f, AtomicOp op, const ElementRef& ref, const Value& value,
                  const Value* expected) {
  Value old = f.value(ref.storage);
  if (!ref.in_bounds.empty()) f.ins("mov.{} {}, 0;", bits_type(ref.storage), old.reg);
  std::string operation = atom_operation(op, ref.storage);
  if (op == AtomicOp::CompareExchange) {
    f.ins("{}atom.relaxed.gpu.{}.{} {}, {}, {}, {};", guard(ref), space_name(ref.space),
          operation, old.reg, operand_address(ref), expected->reg, value.reg);
    return old;
  }
  f.ins("{}atom.relaxed.gpu.{}.{} {}, {}, {};", guard(ref), space_name(ref.space), operation,
        old.reg, operand_address(ref), value.reg);
  return old;
}

}  // namespace vyre::cuda::codegen
