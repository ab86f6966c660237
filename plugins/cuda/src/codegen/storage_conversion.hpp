// Stage 3 (memory): the storage types of buffers versus the value types of registers (SPEC §2).
// Loads widen (u8/u16 zero-extend, i8/i16 sign-extend, f16/bf16 exactly to f32, a bool word is
// `!= 0`); stores narrow (integers truncate, f16/bf16 round to nearest even with overflow to inf,
// bool is 0/1) and write every NaN as the canonical NaN of the stored type.
#pragma once

#include <string>
#include <string_view>

#include "codegen/function_emitter.hpp"

namespace vyre::cuda::codegen {

// How elements of a storage type are moved between memory and a register.
struct StorageAccess {
  RegClass load_class;        // register class the raw load writes
  std::string_view load_type;   // ld suffix ("u8", "s16", "b16", "b32", "f32", ...)
  RegClass store_class;       // register class the store reads
  std::string_view store_type;  // st suffix
};

StorageAccess storage_access(Type storage);

// The zero immediate for a register of class `c` (for out-of-bounds loads).
std::string_view zero_immediate(RegClass c);

// The value of type widen(storage) held by the raw loaded register `raw`.
Value widen_loaded(FunctionEmitter& f, Type storage, const std::string& raw);
// The raw register (of storage_access(storage).store_class) to store for `value`.
std::string narrow_for_store(FunctionEmitter& f, Type storage, const Value& value);

}  // namespace vyre::cuda::codegen
