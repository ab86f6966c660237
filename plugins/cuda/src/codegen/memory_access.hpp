// Stage 3 (memory): element addresses with their bounds predicate, loads, stores and atomics on
// global buffers (kernel parameters) and workgroup buffers (the shared block).
//
// Out-of-bounds accesses are predicated off, never clamped: a load yields zero, a store is dropped,
// an atomic yields 0 and changes nothing. An i32 index below zero is out of bounds. An access the
// optimizer proved in bounds (optimize/value_range.hpp) has no predicate at all. Element
// addressing is separated from the access itself so that a later pass can widen accesses (16-byte
// vector loads, several elements per invocation) without touching the operator lowering.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "codegen/function_emitter.hpp"
#include "vyre/ir.hpp"

namespace vyre::cuda::codegen {

enum class Space { Global, Shared };

// One element of one buffer, addressed and bounds-checked.
struct ElementRef {
  std::size_t buffer = 0;
  Type storage = Type::U32;   // the buffer's element (storage) type
  Space space = Space::Global;
  std::string address;        // .b64 global address (cvta.to.global), or .b32 shared address
  std::uint32_t offset = 0;   // constant byte offset added to `address`
  std::string in_bounds;      // .pred: the index is in bounds; "" when proved in bounds (no check)
};

// Index of the buffer called `name` (throws VYRE_ERR_INVALID_PROGRAM if there is none).
std::size_t buffer_index(const FunctionEmitter& f, std::string_view name);

// Whether an access needs its bounds predicate: a Load or Atomic expression, or a Store node.
// False only where the optimizer's value-range analysis proved the index in bounds.
bool needs_bounds_check(const FunctionEmitter& f, const Expr& access);
bool needs_bounds_check(const FunctionEmitter& f, const Node& store);

// Address element `index` (u32 or i32) of buffer `buffer`, with its bounds predicate unless
// `checked` is false (the caller's access was proved in bounds).
ElementRef element_ref(FunctionEmitter& f, std::size_t buffer, const Value& index, bool checked = true);

// Load the element (zero when out of bounds), widened to its value type.
Value emit_load(FunctionEmitter& f, const ElementRef& ref);
// Store `value` (the widened value type) narrowed to the element type; dropped when out of bounds.
void emit_store(FunctionEmitter& f, const ElementRef& ref, const Value& value);
// Atomic read-modify-write (relaxed, device scope); yields the old element, 0 when out of bounds.
// `expected` is the compare value of compare_exchange (nullptr otherwise).
Value emit_atomic(FunctionEmitter& f, AtomicOp op, const ElementRef& ref, const Value& value,
                  const Value* expected);

// The state-space suffix of ld/st/atom for `space` ("global" or "shared").
std::string_view space_name(Space space);

}  // namespace vyre::cuda::codegen
