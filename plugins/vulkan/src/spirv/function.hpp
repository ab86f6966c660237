// One SPIR-V function under construction: parameters, Function-storage variables (gathered at the
// top of the entry block, where SPIR-V wants them), and blocks of instructions. The caller keeps
// the control flow structured (selection_merge / loop_merge before the branches); `open()` tells
// whether the current block still lacks its terminator.
//
// Not thread-safe.
#pragma once

#include <initializer_list>
#include <optional>
#include <vector>

#include "spirv/module.hpp"

namespace vyre::vulkan::spirv {

class Function {
 public:
  Function(Module& module, Id result_type, const std::vector<Id>& param_types);
  Function(const Function&) = delete;
  Function& operator=(const Function&) = delete;

  Module& module() { return module_; }
  Id id() const { return id_; }
  Id param(std::size_t i) const { return params_.at(i); }

  // A variable of type `pointee` in Function storage, declared in the entry block.
  Id local(Id pointee, std::optional<Id> initializer = std::nullopt);

  // An instruction with a result type and result id; returns the id.
  Id op(spv::Op op, Id type, std::initializer_list<std::uint32_t> operands);
  Id op(spv::Op op, Id type, const std::vector<std::uint32_t>& operands);
  // A GLSL.std.450 instruction.
  Id glsl(Id type, GLSLstd450 instruction, std::initializer_list<Id> operands);
  // An instruction without a result.
  void inst(spv::Op op, std::initializer_list<std::uint32_t> operands);

  Id load(Id type, Id pointer) { return op(spv::Op::OpLoad, type, {pointer}); }
  void store(Id pointer, Id value) { inst(spv::Op::OpStore, {pointer, value}); }
  Id call(Id type, Id function, const std::vector<Id>& args);

  // ---- blocks and control flow ----
  Id label() { return module_.fresh(); }
  // The function starts in its entry block. begin() starts another; the previous one must be
  // terminated.
  void begin(Id label);
  bool open() const { return open_; }
  Id current_block() const { return current_; }  // the label of the block being built
  void selection_merge(Id merge);
  void loop_merge(Id merge, Id continue_target);
  void branch(Id target);
  void branch_if(Id condition, Id if_true, Id if_false);
  void ret();
  void ret(Id value);
  void unreachable();

  // OpFunction .. OpFunctionEnd. The last block must be terminated.
  Words finish() const;

 private:
  void terminate(spv::Op op, std::initializer_list<std::uint32_t> operands);

  Module& module_;
  Id id_;
  Id result_type_;
  Id function_type_;
  std::vector<Id> param_types_;
  std::vector<Id> params_;
  Id entry_label_;
  Words variables_;  // OpVariable instructions of the entry block
  Words body_;       // everything after them
  Id current_ = 0;
  bool open_ = true;
};

}  // namespace vyre::vulkan::spirv
