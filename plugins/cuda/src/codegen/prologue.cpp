// The entry prologue (kernel parameters into registers) and the tail guard.
#include "codegen/entry_parts.hpp"

namespace vyre::cuda::codegen {

std::string param_name(const KernelParam& param) {
  switch (param.kind) {
    case ParamKind::BufferPointer: return fmt::format("p_ptr_{}", param.buffer);
    case ParamKind::ElementCount: return fmt::format("p_len_{}", param.buffer);
    case ParamKind::DispatchN: return "p_n";
    case ParamKind::TailGuard: return "p_tail_guard";
    case ParamKind::WorkgroupBase: return "p_workgroup_base";
    case ParamKind::GridX: return "p_grid_x";
    case ParamKind::GridBarrier: return "p_grid_barrier";
  }
  return {};
}

std::string param_declarations(const std::vector<KernelParam>& params) {
  std::string text;
  for (std::size_t i = 0; i < params.size(); ++i) {
    std::string_view type = params[i].bytes == 8 ? ".u64" : ".u32";
    text += fmt::format("  .param {} {}{}\n", type, param_name(params[i]),
                        i + 1 < params.size() ? "," : "");
  }
  return text;
}

std::string entry_header(std::string_view name, const std::vector<KernelParam>& params,
                         const ProgramLayout& layout) {
  std::string text = fmt::format(".visible .entry {}(\n{})\n", name, param_declarations(params));
  if (const auto& wg = layout.launch_workgroup) text += fmt::format(".reqntid {}, {}, {}\n", (*wg)[0], (*wg)[1], (*wg)[2]);
  return text + "{\n";
}

namespace {

std::string load_pointer(FunctionEmitter& f, const KernelParam& param) {
  std::string generic = f.reg(RegClass::B64);
  f.ins("ld.param.u64 {}, [{}];", generic, param_name(param));
  std::string global = f.reg(RegClass::B64);
  f.ins("cvta.to.global.u64 {}, {};", global, generic);
  return global;
}

std::string load_u32(FunctionEmitter& f, const KernelParam& param) {
  std::string value = f.reg(RegClass::B32);
  f.ins("ld.param.u32 {}, [{}];", value, param_name(param));
  return value;
}

}  // namespace

void emit_prologue(FunctionEmitter& f, const std::vector<KernelParam>& params) {
  std::size_t buffers = f.program().buffers.size();
  f.params.pointer.assign(buffers, {});
  f.params.count.assign(buffers, {});
  bool guarded = !f.layout().full_workgroup;  // N and tail_guard are read only by the tail guard
  // A module with covering buffers is launched only with the tail guard on (kernel_args.cpp), so
  // its guard does not read the flag.
  const bool flag_read = guarded && f.layout().covering.empty();
  for (const KernelParam& param : params) {
    switch (param.kind) {
      case ParamKind::BufferPointer: f.params.pointer[param.buffer] = load_pointer(f, param); break;
      case ParamKind::ElementCount: f.params.count[param.buffer] = load_u32(f, param); break;
      case ParamKind::DispatchN:
        if (guarded) f.params.dispatch_n = load_u32(f, param);
        break;
      case ParamKind::TailGuard:
        if (flag_read) f.params.tail_guard = load_u32(f, param);
        break;
      case ParamKind::WorkgroupBase: f.params.workgroup_base = load_u32(f, param); break;
      case ParamKind::GridX: f.params.grid_x = load_u32(f, param); break;
      case ParamKind::GridBarrier: f.params.grid_barrier = load_pointer(f, param); break;
    }
  }
  if (f.layout().shared_bytes == 0) return;
  f.params.shared_base = f.reg(RegClass::B32);
  f.ins("mov.u32 {}, {};", f.params.shared_base, kSharedBlockName);
}

std::string workgroup_id_x(FunctionEmitter& f) {
  std::string group = f.reg(RegClass::B32);
  f.ins("mov.u32 {}, %ctaid.x;", group);
  if (f.params.workgroup_base.empty()) return group;
  std::string global = f.reg(RegClass::B32);
  f.ins("add.u32 {}, {}, {};", global, group, f.params.workgroup_base);
  return global;
}

void emit_tail_guard(FunctionEmitter& f, const std::string& exit_label) {
  std::string local = f.reg(RegClass::B32);
  std::string size = f.reg(RegClass::B32);
  f.ins("mov.u32 {}, %tid.x;", local);
  std::string group = workgroup_id_x(f);
  // As InvocationId (builtins.cpp): the launch size as an immediate where .reqntid fixes it.
  if (f.layout().launch_workgroup && f.layout().ranges != nullptr) {
    f.ins("mov.u32 {}, {};", size, (*f.layout().launch_workgroup)[0]);
  } else {
    f.ins("mov.u32 {}, %ntid.x;", size);
  }
  std::string id = f.reg(RegClass::B32);
  f.ins("mad.lo.u32 {}, {}, {}, {};", id, group, size, local);
  std::string beyond = f.reg(RegClass::Pred);
  f.ins("setp.ge.u32 {}, {}, {};", beyond, id, f.params.dispatch_n);
  if (f.params.tail_guard.empty()) {  // always on (see emit_prologue)
    f.ins("@{} bra {};", beyond, exit_label);
    return;
  }
  std::string guarded = f.reg(RegClass::Pred);
  f.ins("setp.ne.u32 {}, {}, 0;", guarded, f.params.tail_guard);
  std::string skip = f.reg(RegClass::Pred);
  f.ins("and.pred {}, {}, {};", skip, beyond, guarded);
  f.ins("@{} bra {};", skip, exit_label);
}

}  // namespace vyre::cuda::codegen
