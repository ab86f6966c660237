// What every function of one lowered module shares: the module, the device features, the
// program's buffers as SPIR-V variables, the push constants, the built-in inputs, and the
// SPIR-V types of vyre's value types. Types that need a capability (64-bit, 8/16-bit storage)
// declare it when first asked for.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "codegen/lowering.hpp"
#include "vyre/buffer_index.hpp"
#include "spirv/function.hpp"
#include "spirv/module.hpp"

namespace vyre::vulkan::codegen {

using spirv::Id;

// A value of the IR: its SPIR-V id and vyre value type.
struct Value {
  Id id = 0;
  Type type = Type::U32;
};

// One program buffer as the shader sees it.
struct BufferVar {
  Id variable = 0;          // StorageBuffer (block struct { raw data[]; }) or Workgroup array
  Id raw_type = 0;          // unsigned integer type of `raw_width` bits
  std::uint32_t raw_width = 32;
  bool workgroup = false;
  std::uint32_t slot = 0;   // binding (non-workgroup buffers)
  std::uint32_t count = 0;  // declared count (workgroup buffers)
  Type element = Type::U32;
};

class ModuleContext {
 public:
  ModuleContext(const Program& program, const DeviceFeatures& features);

  spirv::Module& module() { return m_; }
  const Program& program() const { return program_; }
  const DeviceFeatures& features() const { return features_; }

  // ---- types ----
  Id type(Type value_type);  // bool, uint32, uint64, float32, float64
  Id uint(std::uint32_t width);
  Id float_of(std::uint32_t width);
  Id bool_type() { return m_.bool_type(); }
  Id void_type() { return m_.void_type(); }
  Id pointer(spv::StorageClass storage, Id pointee) { return m_.pointer_type(storage, pointee); }
  // struct { T lo; T hi; } for OpUMulExtended / OpSMulExtended.
  Id extended_pair(Id int_type);
  bool uses_float_width(std::uint32_t width) const;

  // ---- constants ----
  Id lit(Type t, std::uint64_t bits);
  Id u32(std::uint32_t v) { return m_.constant_u32(v); }
  Id u64(std::uint64_t v) { return m_.constant(uint(64), v); }
  Id boolean(bool v) { return m_.constant_bool(v); }
  Id zero(Type t) { return lit(t, 0); }

  // ---- program interface ----
  const BufferVar& buffer(std::string_view name) const;
  const std::vector<BufferVar>& buffers() const { return buffers_; }
  std::uint32_t storage_buffer_count() const { return storage_count_; }
  // A u32 push constant word (see lowering.hpp); loaded by `f`.
  Id push_word(spirv::Function& f, std::uint32_t index);
  // Built-in inputs (u32 or uvec3), created on first use.
  Id builtin(spv::BuiltIn b);
  // Specialization constants: 0 = invocations per workgroup, 1..3 = workgroup size per axis.
  Id workgroup_spec(std::uint32_t index) const { return spec_[index]; }
  // Every global variable, for the entry points' interface lists.
  const std::vector<Id>& interface() const { return interface_; }
  void add_interface(Id variable) { interface_.push_back(variable); }
  std::uint64_t workgroup_bytes() const { return workgroup_bytes_; }

  // ---- fused multiply-add ----
  // Whether the device computes fma of `t` (F32, F64) fused (DeviceFeatures::fma32/64).
  bool native_fma(Type t) const { return t == Type::F32 ? features_.fma32 : t == Type::F64 && features_.fma64; }
  // a * b + c rounded once, in `f`; only where native_fma(t). OpFmaKHR where the source is the
  // extension (declares the capability and SPV_KHR_fma on first use), GLSL.std.450 Fma decorated
  // NoContraction (GLSL's `precise fma`) where it is the probe.
  Id fused_fma(spirv::Function& f, Type t, Id a, Id b, Id c);
  // Whether div, sqrt and reciprocal of `t` use the seeded algorithms (DeviceFeatures).
  bool seeded_div_sqrt(Type t) const {
    return t == Type::F32 ? features_.seeded_div_sqrt32 : t == Type::F64 && features_.seeded_div_sqrt64;
  }

  // ---- helper functions emitted once per module (e.g. math), by name ----
  std::optional<Id> helper(const std::string& name) const;
  void add_helper(const std::string& name, Id function);

 private:
  void declare_buffers();
  void declare_push_constants();
  void declare_workgroup_size();

  spirv::Module m_;
  const Program& program_;
  BufferIndex buffer_names_;  // program_.buffers by name
  DeviceFeatures features_;
  std::vector<BufferVar> buffers_;
  std::uint32_t storage_count_ = 0;
  Id push_block_ = 0;
  std::map<spv::BuiltIn, Id> builtins_;
  std::map<Id, Id> pairs_;
  Id spec_[4] = {0, 0, 0, 0};
  std::vector<Id> interface_;
  std::uint64_t workgroup_bytes_ = 0;
  std::map<std::string, Id> helpers_;
  bool float_widths_[2] = {false, false};  // 32, 64
};

// The raw (in-memory) width of a storage type: 8, 16, 32 or 64 bits; bool is a 32-bit word.
std::uint32_t raw_width(Type storage);

}  // namespace vyre::vulkan::codegen
