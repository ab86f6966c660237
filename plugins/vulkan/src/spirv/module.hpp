// A SPIR-V module under construction: ids, the logical sections of SPIR-V §2.4 in their order, and
// types and constants created once each (asking twice for `uint 32` gives the same id). Functions
// are built with spirv::Function (function.hpp) and appended whole. Nothing here knows vyre: it is
// the binary encoding of SPIR-V, checked by spirv-val in the tests.
//
// Not thread-safe; one module per lowering.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <spirv/unified1/GLSL.std.450.h>
#include <spirv/unified1/spirv.hpp11>

namespace vyre::vulkan::spirv {

using Id = std::uint32_t;
using Words = std::vector<std::uint32_t>;

// Appends one instruction: the word count and opcode, then the operands.
void emit(Words& out, spv::Op op, std::initializer_list<std::uint32_t> operands);
void emit(Words& out, spv::Op op, const std::vector<std::uint32_t>& operands);
// A literal string as SPIR-V words (UTF-8, NUL-terminated, zero-padded to a word).
void append_string(std::vector<std::uint32_t>& out, std::string_view text);

constexpr std::uint32_t word(spv::Capability c) { return static_cast<std::uint32_t>(c); }
template <class E>
constexpr std::uint32_t w(E e) { return static_cast<std::uint32_t>(e); }

class Module {
 public:
  Id fresh() { return next_id_++; }
  Id bound() const { return next_id_; }

  // ---- module-level declarations (each at most once) ----
  void capability(spv::Capability c);
  void extension(std::string_view name);
  Id glsl();  // the GLSL.std.450 extended instruction set
  void entry_point(Id function, std::string_view name, const std::vector<Id>& interface);
  void execution_mode(Id function, spv::ExecutionMode mode, std::initializer_list<std::uint32_t> literals = {});
  void name(Id target, std::string_view text);
  void decorate(Id target, spv::Decoration d, std::initializer_list<std::uint32_t> literals = {});
  void member_decorate(Id structure, std::uint32_t member, spv::Decoration d,
                       std::initializer_list<std::uint32_t> literals = {});

  // ---- types (created once each, except structs: each call is a new struct) ----
  Id void_type();
  Id bool_type();
  Id uint_type(std::uint32_t width);  // integers are unsigned types; signedness is per opcode
  Id float_type(std::uint32_t width);
  Id vector_type(Id component, std::uint32_t count);
  Id array_type(Id element, std::uint32_t length);
  // Decorated ArrayStride `stride` once, when first created (storage buffers' element arrays).
  Id runtime_array_type(Id element, std::uint32_t stride);
  Id struct_type(const std::vector<Id>& members);
  Id pointer_type(spv::StorageClass storage, Id pointee);
  Id function_type(Id result, const std::vector<Id>& params);

  // ---- constants (created once each) ----
  // `bits` holds the value zero-extended from the type's width (an integer or float type).
  Id constant(Id type, std::uint64_t bits);
  Id constant_u32(std::uint32_t v) { return constant(uint_type(32), v); }
  Id constant_bool(bool v);
  Id constant_null(Id type);
  Id constant_composite(Id type, const std::vector<Id>& parts);
  // A 32-bit unsigned specialization constant with SpecId `spec_id` (created per call).
  Id spec_constant_u32(std::uint32_t default_value, std::uint32_t spec_id);
  Id spec_constant_composite(Id type, const std::vector<Id>& parts);

  // ---- global variables ----
  Id variable(Id pointer_type, spv::StorageClass storage, std::optional<Id> initializer = std::nullopt);

  // ---- functions ----
  void add_function(const Words& code);

  // The finished module: header (SPIR-V `version`, e.g. 0x00010500) and every section in order.
  Words finish(std::uint32_t version) const;

 private:
  Id type_or_constant(spv::Op op, std::vector<std::uint32_t> operands);

  Id next_id_ = 1;
  Id glsl_ = 0;
  std::vector<std::uint32_t> capabilities_;
  std::vector<std::string> extensions_;
  Words entry_points_, execution_modes_, names_, annotations_, globals_, functions_;
  // Deduplication of types and constants: (opcode, operands without the result id) -> id.
  std::map<std::vector<std::uint32_t>, Id> interned_;
  std::map<Id, std::uint32_t> scalar_width_;  // int and float types -> width
};

}  // namespace vyre::vulkan::spirv
