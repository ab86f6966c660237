// Entry assembly: parameter list, register and shared declarations, prologue, then per phase:
// (grid barrier,) shared zeroing (unless no statement can see it), the statements, the phase's end label (Return's target).
#include "codegen/entry_builder.hpp"

#include "codegen/entry_parts.hpp"
#include "codegen/function_emitter.hpp"
#include "codegen/statements.hpp"

namespace vyre::cuda::codegen {

namespace {

void emit_phase(FunctionEmitter& f, const std::vector<const Node*>& statements) {
  f.clear_scopes();  // nothing crosses a grid_sync
  f.push_scope();
  for (const Node* node : statements) emit_statement(f, *node);
  f.pop_scope();
}

void emit_phases(FunctionEmitter& f, const EntryPlan& plan) {
  const ProgramLayout& layout = f.layout();
  for (std::size_t k = 0; k < plan.phases.size(); ++k) {
    f.return_label = f.new_label(fmt::format("phase{}_end", plan.phases[k]));
    if (k > 0) emit_grid_barrier(f);
    if (k == 0 && !layout.full_workgroup) emit_tail_guard(f, f.return_label);
    const std::size_t phase = plan.phases[k];
    if (phase >= layout.skip_zero_shared.size() || !layout.skip_zero_shared[phase]) emit_zero_shared(f);
    emit_phase(f, layout.phases[plan.phases[k]]);
    f.put_label(f.return_label);
  }
  f.ins("ret;");
}

}  // namespace

EmittedEntry emit_entry(const ProgramLayout& layout, const Target& target, const EntryPlan& plan) {
  EmittedEntry out;
  out.entry.name = plan.name;
  out.entry.params = kernel_params(*layout.program, plan.sharded, plan.cooperative, layout.covering);
  out.entry.shared_bytes = layout.shared_bytes;
  out.entry.cooperative = plan.cooperative;

  FunctionEmitter f(layout, target);
  emit_prologue(f, out.entry.params);
  emit_phases(f, plan);

  out.ptx = entry_header(plan.name, out.entry.params, layout);
  out.ptx += f.register_declarations();
  if (layout.shared_bytes > 0)
    out.ptx += fmt::format("  .shared .align 16 .b8 {}[{}];\n", kSharedBlockName, layout.shared_bytes);
  out.ptx += f.body();
  out.ptx += "}\n";
  out.math_calls = f.math_calls;
  return out;
}

}  // namespace vyre::cuda::codegen
