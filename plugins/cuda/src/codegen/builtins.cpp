// Builtins from PTX special registers. A subgroup is a warp: CUDA forms warps from consecutive
// linear thread ids (x fastest, then y, z), so %laneid is `local linear id % 32` (SEMANTICS).
#include <string>

#include "codegen/entry_parts.hpp"
#include "codegen/expressions.hpp"
#include "codegen/memory_access.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda::codegen {

namespace {

constexpr std::uint32_t kSubgroupSize = 32;

char axis_letter(const Expr& expr) {
  if (expr.axis > 2)
    fail(VYRE_ERR_INVALID_PROGRAM, fmt::format("a builtin names axis {}", expr.axis),
         "use axis 0, 1 or 2");
  return "xyz"[expr.axis];
}

Value special(FunctionEmitter& f, std::string_view name, char axis) {
  Value v = f.value(Type::U32);
  f.ins("mov.u32 {}, %{}.{};", v.reg, name, axis);
  return v;
}

// WorkgroupId: global in sharded entries (the launch's workgroup_base added along x).
Value workgroup_id(FunctionEmitter& f, char axis) {
  if (axis == 'x') return Value{workgroup_id_x(f), Type::U32};
  return special(f, "ctaid", axis);
}

// NumWorkgroups: the whole dispatch's grid_x along x in sharded entries, not the launch's.
Value num_workgroups(FunctionEmitter& f, char axis) {
  if (axis == 'x' && !f.params.grid_x.empty()) return Value{f.params.grid_x, Type::U32};
  return special(f, "nctaid", axis);
}

// InvocationId = WorkgroupId * workgroup size + LocalId. With the optimizer, a module specialised
// to its launch workgroup (.reqntid: no other size can launch it) multiplies by the size as an
// immediate instead of reading %ntid (a constant-bank load in SASS).
Value invocation_id(FunctionEmitter& f, char axis) {
  if (axis == 'x' && f.lane != nullptr) return Value{f.lane->invocation_x, Type::U32};
  Value local = special(f, "tid", axis);
  Value group = workgroup_id(f, axis);
  const auto& launch = f.layout().launch_workgroup;
  std::string size;
  if (launch && f.layout().ranges != nullptr) {
    size = std::to_string((*launch)[static_cast<std::size_t>(axis - 'x')]);
  } else {
    size = special(f, "ntid", axis).reg;
  }
  Value v = f.value(Type::U32);
  f.ins("mad.lo.u32 {}, {}, {}, {};", v.reg, group.reg, size, local.reg);
  return v;
}

Value buffer_length(FunctionEmitter& f, const Expr& expr) {
  std::size_t buffer = buffer_index(f, expr.name);
  const BufferSlot& slot = f.layout().buffers[buffer];
  if (slot.workgroup) return emit_constant(f, Type::U32, slot.count);
  return Value{f.params.count[buffer], Type::U32};
}

}  // namespace

Value emit_builtin(FunctionEmitter& f, const Expr& expr) {
  switch (expr.kind) {
    case ExprKind::InvocationId: return invocation_id(f, axis_letter(expr));
    case ExprKind::LocalId: return special(f, "tid", axis_letter(expr));
    case ExprKind::WorkgroupId: return workgroup_id(f, axis_letter(expr));
    case ExprKind::NumWorkgroups: return num_workgroups(f, axis_letter(expr));
    case ExprKind::SubgroupLane: {
      Value v = f.value(Type::U32);
      f.ins("mov.u32 {}, %laneid;", v.reg);
      return v;
    }
    case ExprKind::SubgroupSize: return emit_constant(f, Type::U32, kSubgroupSize);
    case ExprKind::BufLen: return buffer_length(f, expr);
    default: break;
  }
  fail(VYRE_ERR_INTERNAL, "emit_builtin got an expression that is not a builtin",
       "report this bug");
}

}  // namespace vyre::cuda::codegen
