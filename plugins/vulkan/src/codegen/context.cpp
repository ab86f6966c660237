#include "codegen/context.hpp"

#include "khr_shader_fma.hpp"
#include "vyre/error.hpp"

namespace vyre::vulkan::codegen {

using spirv::w;

std::uint32_t raw_width(Type storage) { return storage == Type::Bool ? 32 : byte_size(storage) * 8; }

ModuleContext::ModuleContext(const Program& program, const DeviceFeatures& features)
    : program_(program), buffer_names_(program), features_(features) {
  m_.capability(spv::Capability::Shader);
  declare_workgroup_size();
  declare_buffers();
  declare_push_constants();
}

Id ModuleContext::uint(std::uint32_t width) {
  if (width == 64) m_.capability(spv::Capability::Int64);
  if (width == 8) m_.capability(spv::Capability::StorageBuffer8BitAccess);
  if (width == 16) m_.capability(spv::Capability::StorageBuffer16BitAccess);
  return m_.uint_type(width);
}

Id ModuleContext::float_of(std::uint32_t width) {
  if (width == 64) m_.capability(spv::Capability::Float64);
  float_widths_[width == 64 ? 1 : 0] = true;
  return m_.float_type(width);
}

bool ModuleContext::uses_float_width(std::uint32_t width) const { return float_widths_[width == 64 ? 1 : 0]; }

Id ModuleContext::type(Type t) {
  switch (t) {
    case Type::Bool: return m_.bool_type();
    case Type::U32: case Type::I32: return uint(32);
    case Type::U64: case Type::I64: return uint(64);
    case Type::F32: return float_of(32);
    case Type::F64: return float_of(64);
    default: break;
  }
  fail(VYRE_ERR_INTERNAL, "SPIR-V emitter: '" + std::string(type_name(t)) + "' is not a value type",
       "report this emitter bug");
}

Id ModuleContext::extended_pair(Id int_type) {
  if (auto it = pairs_.find(int_type); it != pairs_.end()) return it->second;
  const Id pair = m_.struct_type({int_type, int_type});
  pairs_.emplace(int_type, pair);
  return pair;
}

Id ModuleContext::lit(Type t, std::uint64_t bits) {
  if (t == Type::Bool) return m_.constant_bool(bits != 0);
  return m_.constant(type(t), bits);
}

const BufferVar& ModuleContext::buffer(std::string_view name) const {
  if (auto i = buffer_names_.position(name)) return buffers_[*i];
  fail(VYRE_ERR_INTERNAL, "SPIR-V emitter: no buffer '" + std::string(name) + "'",
       "report this emitter bug (the validator checks buffer names)");
}

void ModuleContext::declare_workgroup_size() {
  spec_[0] = m_.spec_constant_u32(1, 0);
  for (std::uint32_t i = 1; i <= 3; ++i) spec_[i] = m_.spec_constant_u32(1, i);
  const Id one = u32(1);
  const Id size = m_.spec_constant_composite(m_.vector_type(uint(32), 3), {spec_[0], one, one});
  m_.decorate(size, spv::Decoration::BuiltIn, {w(spv::BuiltIn::WorkgroupSize)});
}

void ModuleContext::declare_buffers() {
  for (const BufferDecl& decl : program_.buffers) {
    BufferVar var;
    var.element = decl.element;
    var.count = decl.count;
    if (decl.access == Access::Workgroup) {
      // Workgroup memory is not host-visible: narrow elements take a 32-bit word each.
      var.workgroup = true;
      var.raw_width = raw_width(decl.element) == 64 ? 64 : 32;
      var.raw_type = uint(var.raw_width);
      const Id array = m_.array_type(var.raw_type, decl.count);
      var.variable = m_.variable(pointer(spv::StorageClass::Workgroup, array), spv::StorageClass::Workgroup);
      workgroup_bytes_ += std::uint64_t{decl.count} * (var.raw_width / 8);
    } else {
      var.slot = storage_count_++;
      var.raw_width = raw_width(decl.element);
      var.raw_type = uint(var.raw_width);
      const Id array = m_.runtime_array_type(var.raw_type, var.raw_width / 8);
      const Id block = m_.struct_type({array});
      m_.decorate(block, spv::Decoration::Block);
      m_.member_decorate(block, 0, spv::Decoration::Offset, {0});
      var.variable = m_.variable(pointer(spv::StorageClass::StorageBuffer, block), spv::StorageClass::StorageBuffer);
      m_.decorate(var.variable, spv::Decoration::DescriptorSet, {0});
      m_.decorate(var.variable, spv::Decoration::Binding, {var.slot});
      if (!is_writable(decl.access)) m_.decorate(var.variable, spv::Decoration::NonWritable);
    }
    m_.name(var.variable, decl.name);
    interface_.push_back(var.variable);
    buffers_.push_back(var);
  }
}

void ModuleContext::declare_push_constants() {
  const std::uint32_t words = kPushHeaderWords + storage_count_;
  const Id array = m_.array_type(uint(32), words);
  m_.decorate(array, spv::Decoration::ArrayStride, {4});
  const Id block = m_.struct_type({array});
  m_.decorate(block, spv::Decoration::Block);
  m_.member_decorate(block, 0, spv::Decoration::Offset, {0});
  push_block_ = m_.variable(pointer(spv::StorageClass::PushConstant, block), spv::StorageClass::PushConstant);
  m_.name(push_block_, "params");
  interface_.push_back(push_block_);
}

Id ModuleContext::push_word(spirv::Function& f, std::uint32_t index) {
  const Id ptr = f.op(spv::Op::OpAccessChain, pointer(spv::StorageClass::PushConstant, uint(32)),
                      {push_block_, u32(0), u32(index)});
  return f.load(uint(32), ptr);
}

Id ModuleContext::builtin(spv::BuiltIn b) {
  if (auto it = builtins_.find(b); it != builtins_.end()) return it->second;
  const bool vector = b == spv::BuiltIn::WorkgroupId || b == spv::BuiltIn::LocalInvocationId ||
                      b == spv::BuiltIn::GlobalInvocationId;
  const Id t = vector ? m_.vector_type(uint(32), 3) : uint(32);
  const Id var = m_.variable(pointer(spv::StorageClass::Input, t), spv::StorageClass::Input);
  m_.decorate(var, spv::Decoration::BuiltIn, {w(b)});
  builtins_.emplace(b, var);
  interface_.push_back(var);
  return var;
}

Id ModuleContext::fused_fma(spirv::Function& f, Type t, Id a, Id b, Id c) {
  if (!native_fma(t))
    fail(VYRE_ERR_INTERNAL, "SPIR-V emitter: a fused fma for " + std::string(type_name(t)) + " on a device without it",
         "report this emitter bug");
  if (features_.fma_source(t) == DeviceFeatures::FmaSource::Probe) {
    const Id r = f.glsl(type(t), GLSLstd450Fma, {a, b, c});
    m_.decorate(r, spv::Decoration::NoContraction);
    return r;
  }
  m_.capability(khr_fma::kCapability);
  m_.extension(khr_fma::kSpirvExtension);
  return f.op(khr_fma::kOpFma, type(t), {a, b, c});
}

std::optional<Id> ModuleContext::helper(const std::string& name) const {
  if (auto it = helpers_.find(name); it != helpers_.end()) return it->second;
  return std::nullopt;
}

void ModuleContext::add_helper(const std::string& name, Id function) { helpers_[name] = function; }

}  // namespace vyre::vulkan::codegen
