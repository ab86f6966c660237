#include "spirv/module.hpp"

#include <algorithm>
#include <cstring>

namespace vyre::vulkan::spirv {

void emit(Words& out, spv::Op op, const std::vector<std::uint32_t>& operands) {
  out.push_back(static_cast<std::uint32_t>(operands.size() + 1) << 16 | static_cast<std::uint32_t>(op));
  out.insert(out.end(), operands.begin(), operands.end());
}

void emit(Words& out, spv::Op op, std::initializer_list<std::uint32_t> operands) {
  emit(out, op, std::vector<std::uint32_t>(operands));
}

void append_string(std::vector<std::uint32_t>& out, std::string_view text) {
  const std::size_t words = text.size() / 4 + 1;  // room for the NUL
  const std::size_t start = out.size();
  out.resize(start + words, 0);
  std::memcpy(out.data() + start, text.data(), text.size());
}

void Module::capability(spv::Capability c) {
  const std::uint32_t v = word(c);
  if (std::find(capabilities_.begin(), capabilities_.end(), v) == capabilities_.end())
    capabilities_.push_back(v);
}

void Module::extension(std::string_view name) {
  if (std::find(extensions_.begin(), extensions_.end(), name) == extensions_.end())
    extensions_.emplace_back(name);
}

Id Module::glsl() {
  if (glsl_ == 0) glsl_ = fresh();
  return glsl_;
}

void Module::entry_point(Id function, std::string_view name, const std::vector<Id>& interface) {
  std::vector<std::uint32_t> ops{w(spv::ExecutionModel::GLCompute), function};
  append_string(ops, name);
  ops.insert(ops.end(), interface.begin(), interface.end());
  emit(entry_points_, spv::Op::OpEntryPoint, ops);
}

void Module::execution_mode(Id function, spv::ExecutionMode mode,
                            std::initializer_list<std::uint32_t> literals) {
  std::vector<std::uint32_t> ops{function, w(mode)};
  ops.insert(ops.end(), literals);
  emit(execution_modes_, spv::Op::OpExecutionMode, ops);
}

void Module::name(Id target, std::string_view text) {
  std::vector<std::uint32_t> ops{target};
  append_string(ops, text);
  emit(names_, spv::Op::OpName, ops);
}

void Module::decorate(Id target, spv::Decoration d, std::initializer_list<std::uint32_t> literals) {
  std::vector<std::uint32_t> ops{target, w(d)};
  ops.insert(ops.end(), literals);
  emit(annotations_, spv::Op::OpDecorate, ops);
}

void Module::member_decorate(Id structure, std::uint32_t member, spv::Decoration d,
                             std::initializer_list<std::uint32_t> literals) {
  std::vector<std::uint32_t> ops{structure, member, w(d)};
  ops.insert(ops.end(), literals);
  emit(annotations_, spv::Op::OpMemberDecorate, ops);
}

Id Module::type_or_constant(spv::Op op, std::vector<std::uint32_t> operands) {
  std::vector<std::uint32_t> key{w(op)};
  key.insert(key.end(), operands.begin(), operands.end());
  if (auto it = interned_.find(key); it != interned_.end()) return it->second;
  const Id id = fresh();
  interned_.emplace(std::move(key), id);
  // Types have the result id first; constants have the result type first.
  const bool is_constant = op == spv::Op::OpConstant || op == spv::Op::OpConstantTrue ||
                           op == spv::Op::OpConstantFalse || op == spv::Op::OpConstantNull ||
                           op == spv::Op::OpConstantComposite;
  if (is_constant) {
    operands.insert(operands.begin() + 1, id);
  } else {
    operands.insert(operands.begin(), id);
  }
  emit(globals_, op, operands);
  return id;
}

Id Module::void_type() { return type_or_constant(spv::Op::OpTypeVoid, {}); }
Id Module::bool_type() { return type_or_constant(spv::Op::OpTypeBool, {}); }
Id Module::uint_type(std::uint32_t width) {
  const Id id = type_or_constant(spv::Op::OpTypeInt, {width, 0});
  scalar_width_[id] = width;
  return id;
}

Id Module::float_type(std::uint32_t width) {
  const Id id = type_or_constant(spv::Op::OpTypeFloat, {width});
  scalar_width_[id] = width;
  return id;
}
Id Module::vector_type(Id component, std::uint32_t count) {
  return type_or_constant(spv::Op::OpTypeVector, {component, count});
}
Id Module::array_type(Id element, std::uint32_t length) {
  return type_or_constant(spv::Op::OpTypeArray, {element, constant_u32(length)});
}

Id Module::runtime_array_type(Id element, std::uint32_t stride) {
  const std::vector<std::uint32_t> key{w(spv::Op::OpTypeRuntimeArray), element, stride};
  if (auto it = interned_.find(key); it != interned_.end()) return it->second;
  const Id id = fresh();
  interned_.emplace(key, id);
  emit(globals_, spv::Op::OpTypeRuntimeArray, {id, element});
  decorate(id, spv::Decoration::ArrayStride, {stride});
  return id;
}

Id Module::struct_type(const std::vector<Id>& members) {
  const Id id = fresh();
  std::vector<std::uint32_t> ops{id};
  ops.insert(ops.end(), members.begin(), members.end());
  emit(globals_, spv::Op::OpTypeStruct, ops);
  return id;
}

Id Module::pointer_type(spv::StorageClass storage, Id pointee) {
  return type_or_constant(spv::Op::OpTypePointer, {w(storage), pointee});
}

Id Module::function_type(Id result, const std::vector<Id>& params) {
  std::vector<std::uint32_t> ops{result};
  ops.insert(ops.end(), params.begin(), params.end());
  return type_or_constant(spv::Op::OpTypeFunction, ops);
}

Id Module::constant(Id type, std::uint64_t bits) {
  const auto width = scalar_width_.find(type);
  if (width != scalar_width_.end() && width->second == 64)
    return type_or_constant(spv::Op::OpConstant, {type, static_cast<std::uint32_t>(bits),
                                                  static_cast<std::uint32_t>(bits >> 32)});
  return type_or_constant(spv::Op::OpConstant, {type, static_cast<std::uint32_t>(bits)});
}

Id Module::constant_bool(bool v) {
  return type_or_constant(v ? spv::Op::OpConstantTrue : spv::Op::OpConstantFalse, {bool_type()});
}

Id Module::constant_null(Id type) { return type_or_constant(spv::Op::OpConstantNull, {type}); }

Id Module::constant_composite(Id type, const std::vector<Id>& parts) {
  std::vector<std::uint32_t> ops{type};
  ops.insert(ops.end(), parts.begin(), parts.end());
  return type_or_constant(spv::Op::OpConstantComposite, ops);
}

Id Module::spec_constant_u32(std::uint32_t default_value, std::uint32_t spec_id) {
  const Id id = fresh();
  emit(globals_, spv::Op::OpSpecConstant, {uint_type(32), id, default_value});
  decorate(id, spv::Decoration::SpecId, {spec_id});
  return id;
}

Id Module::spec_constant_composite(Id type, const std::vector<Id>& parts) {
  const Id id = fresh();
  std::vector<std::uint32_t> ops{type, id};
  ops.insert(ops.end(), parts.begin(), parts.end());
  emit(globals_, spv::Op::OpSpecConstantComposite, ops);
  return id;
}

Id Module::variable(Id pointer_type, spv::StorageClass storage, std::optional<Id> initializer) {
  const Id id = fresh();
  if (initializer) {
    emit(globals_, spv::Op::OpVariable, {pointer_type, id, w(storage), *initializer});
  } else {
    emit(globals_, spv::Op::OpVariable, {pointer_type, id, w(storage)});
  }
  return id;
}

void Module::add_function(const Words& code) { functions_.insert(functions_.end(), code.begin(), code.end()); }

Words Module::finish(std::uint32_t version) const {
  Words out{spv::MagicNumber, version, 0 /* generator */, next_id_, 0};
  for (std::uint32_t c : capabilities_) emit(out, spv::Op::OpCapability, {c});
  for (const std::string& e : extensions_) {
    std::vector<std::uint32_t> ops;
    append_string(ops, e);
    emit(out, spv::Op::OpExtension, ops);
  }
  if (glsl_ != 0) {
    std::vector<std::uint32_t> ops{glsl_};
    append_string(ops, "GLSL.std.450");
    emit(out, spv::Op::OpExtInstImport, ops);
  }
  emit(out, spv::Op::OpMemoryModel, {w(spv::AddressingModel::Logical), w(spv::MemoryModel::GLSL450)});
  for (const Words* section : {&entry_points_, &execution_modes_, &names_, &annotations_, &globals_, &functions_})
    out.insert(out.end(), section->begin(), section->end());
  return out;
}

}  // namespace vyre::vulkan::spirv
