#include "spirv/function.hpp"

#include "vyre/error.hpp"

namespace vyre::vulkan::spirv {

Function::Function(Module& module, Id result_type, const std::vector<Id>& param_types)
    : module_(module),
      id_(module.fresh()),
      result_type_(result_type),
      function_type_(module.function_type(result_type, param_types)),
      param_types_(param_types) {
  for (std::size_t i = 0; i < param_types.size(); ++i) params_.push_back(module_.fresh());
  entry_label_ = module_.fresh();
  current_ = entry_label_;
}

Id Function::local(Id pointee, std::optional<Id> initializer) {
  const Id pointer = module_.pointer_type(spv::StorageClass::Function, pointee);
  const Id id = module_.fresh();
  if (initializer) {
    emit(variables_, spv::Op::OpVariable, {pointer, id, w(spv::StorageClass::Function), *initializer});
  } else {
    emit(variables_, spv::Op::OpVariable, {pointer, id, w(spv::StorageClass::Function)});
  }
  return id;
}

Id Function::op(spv::Op op, Id type, const std::vector<std::uint32_t>& operands) {
  if (!open_) fail(VYRE_ERR_INTERNAL, "SPIR-V emitter: an instruction after a block's terminator",
                   "report this emitter bug with the program that triggered it");
  const Id id = module_.fresh();
  std::vector<std::uint32_t> all{type, id};
  all.insert(all.end(), operands.begin(), operands.end());
  emit(body_, op, all);
  return id;
}

Id Function::op(spv::Op op, Id type, std::initializer_list<std::uint32_t> operands) {
  return this->op(op, type, std::vector<std::uint32_t>(operands));
}

Id Function::glsl(Id type, GLSLstd450 instruction, std::initializer_list<Id> operands) {
  std::vector<std::uint32_t> all{module_.glsl(), static_cast<std::uint32_t>(instruction)};
  all.insert(all.end(), operands.begin(), operands.end());
  return op(spv::Op::OpExtInst, type, all);
}

void Function::inst(spv::Op op, std::initializer_list<std::uint32_t> operands) {
  if (!open_) fail(VYRE_ERR_INTERNAL, "SPIR-V emitter: an instruction after a block's terminator",
                   "report this emitter bug with the program that triggered it");
  emit(body_, op, operands);
}

Id Function::call(Id type, Id function, const std::vector<Id>& args) {
  std::vector<std::uint32_t> all{function};
  all.insert(all.end(), args.begin(), args.end());
  return op(spv::Op::OpFunctionCall, type, all);
}

void Function::begin(Id label) {
  if (open_)
    fail(VYRE_ERR_INTERNAL, "SPIR-V emitter: a block started before the previous one ended",
         "report this emitter bug with the program that triggered it");
  emit(body_, spv::Op::OpLabel, {label});
  current_ = label;
  open_ = true;
}

void Function::selection_merge(Id merge) {
  inst(spv::Op::OpSelectionMerge, {merge, w(spv::SelectionControlMask::MaskNone)});
}

void Function::loop_merge(Id merge, Id continue_target) {
  inst(spv::Op::OpLoopMerge, {merge, continue_target, w(spv::LoopControlMask::MaskNone)});
}

void Function::terminate(spv::Op op, std::initializer_list<std::uint32_t> operands) {
  inst(op, operands);
  open_ = false;
}

void Function::branch(Id target) { terminate(spv::Op::OpBranch, {target}); }
void Function::branch_if(Id condition, Id if_true, Id if_false) {
  terminate(spv::Op::OpBranchConditional, {condition, if_true, if_false});
}
void Function::ret() { terminate(spv::Op::OpReturn, {}); }
void Function::ret(Id value) { terminate(spv::Op::OpReturnValue, {value}); }
void Function::unreachable() { terminate(spv::Op::OpUnreachable, {}); }

Words Function::finish() const {
  if (open_) fail(VYRE_ERR_INTERNAL, "SPIR-V emitter: a function's last block has no terminator",
                  "report this emitter bug with the program that triggered it");
  Words out;
  emit(out, spv::Op::OpFunction, {result_type_, id_, w(spv::FunctionControlMask::MaskNone), function_type_});
  for (std::size_t i = 0; i < params_.size(); ++i)
    emit(out, spv::Op::OpFunctionParameter, {param_types_[i], params_[i]});
  emit(out, spv::Op::OpLabel, {entry_label_});
  out.insert(out.end(), variables_.begin(), variables_.end());
  out.insert(out.end(), body_.begin(), body_.end());
  emit(out, spv::Op::OpFunctionEnd, {});
  return out;
}

}  // namespace vyre::vulkan::spirv
