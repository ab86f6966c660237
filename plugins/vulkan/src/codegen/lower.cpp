// lower(): the module of a program (lowering.hpp): one entry point per phase, the capabilities
// its types and operations need, and the float-control execution modes the device offers.
#include <string>

#include "codegen/emitter.hpp"
#include "vyre/error.hpp"
#include "vyre/geometry.hpp"

namespace vyre::vulkan {

namespace {

using codegen::Id;

// The top-level statements split at grid_sync barriers.
std::vector<std::vector<Node>> phases_of(const Program& program) {
  std::vector<std::vector<Node>> phases(1);
  for (const Node& n : program.body) {
    if (n.kind == NodeKind::Barrier && n.barrier == BarrierKind::GridSync) {
      phases.emplace_back();
      continue;
    }
    phases.back().push_back(n);
  }
  return phases;
}

void require_device_support(const Program& program, const DeviceFeatures& features) {
  for (const std::string& id : ops_used(program)) {
    const OpInfo* op = find_op(id);
    if (op != nullptr && device_supports(*op, features)) continue;
    fail(VYRE_ERR_UNSUPPORTED,
         "the Vulkan device cannot run op '" + id + "' (" +
             (op != nullptr && emits(*op) ? "it lacks a feature the op needs" : "the SPIR-V emitter does not lower it") + ")",
         "route the program to another backend (unset VYRE_BACKEND), or run it on a device with the feature "
         "(`vyre backends` shows each device's ops in its certificate)");
  }
}

void declare_float_controls(spirv::Module& m, codegen::ModuleContext& ctx, const std::vector<Id>& entries) {
  const DeviceFeatures& f = ctx.features();
  struct Mode {
    bool offered32, offered64;
    spv::Capability capability;
    spv::ExecutionMode mode;
  };
  const Mode modes[] = {
      {f.denorm_preserve32, f.denorm_preserve64, spv::Capability::DenormPreserve, spv::ExecutionMode::DenormPreserve},
      {f.rte32, f.rte64, spv::Capability::RoundingModeRTE, spv::ExecutionMode::RoundingModeRTE},
      {f.signed_zero_inf_nan32, f.signed_zero_inf_nan64, spv::Capability::SignedZeroInfNanPreserve,
       spv::ExecutionMode::SignedZeroInfNanPreserve},
  };
  for (const Mode& mode : modes) {
    for (std::uint32_t width : {32u, 64u}) {
      if (!ctx.uses_float_width(width) || !(width == 32 ? mode.offered32 : mode.offered64)) continue;
      m.capability(mode.capability);
      for (Id entry : entries) m.execution_mode(entry, mode.mode, {width});
    }
  }
}

}  // namespace

LoweredProgram lower(const Program& program, const DeviceFeatures& features) {
  require_device_support(program, features);
  codegen::ModuleContext ctx(program, features);
  spirv::Module& m = ctx.module();
  const bool subgroups = uses_subgroup_ops(program);
  if (subgroups) {
    m.capability(spv::Capability::GroupNonUniform);
    m.capability(spv::Capability::GroupNonUniformBallot);
    m.capability(spv::Capability::GroupNonUniformShuffle);
  }
  LoweredProgram out;
  const auto phases = phases_of(program);
  const bool tail_guard_possible = !needs_full_workgroups(program);
  std::vector<Id> functions;
  for (std::size_t p = 0; p < phases.size(); ++p) {
    spirv::Function f(m, m.void_type(), {});
    codegen::Emitter e(ctx, f);
    e.entry_prologue(tail_guard_possible);
    e.statements(phases[p]);
    if (f.open()) f.ret();
    m.add_function(f.finish());
    functions.push_back(f.id());
    out.entries.push_back(phases.size() == 1 ? "main" : "phase" + std::to_string(p));
  }
  for (std::size_t p = 0; p < functions.size(); ++p) {
    m.entry_point(functions[p], out.entries[p], ctx.interface());
    m.execution_mode(functions[p], spv::ExecutionMode::LocalSize, {1, 1, 1});
  }
  declare_float_controls(m, ctx, functions);
  for (const codegen::BufferVar& b : ctx.buffers())
    if (!b.workgroup) out.storage_buffers.push_back(0);
  for (std::size_t i = 0, slot = 0; i < program.buffers.size(); ++i)
    if (program.buffers[i].access != Access::Workgroup) out.storage_buffers[slot++] = static_cast<std::uint32_t>(i);
  out.push_constant_bytes = 4 * (kPushHeaderWords + static_cast<std::uint32_t>(out.storage_buffers.size()));
  out.subgroup_size_32 = subgroups;
  out.workgroup_bytes = ctx.workgroup_bytes();
  out.spirv = m.finish(kSpirvVersion);
  return out;
}

}  // namespace vyre::vulkan
