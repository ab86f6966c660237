// Dispatch geometry (SPEC §3): the element count N, the workgroup and grid sizes, and whether the
// tail guard applies. Every backend resolves a dispatch through this one function, so they agree
// on what runs.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "vyre/ir.hpp"

namespace vyre {

struct LaunchGeometry {
  std::uint64_t n = 0;                         // dispatch elements N
  std::array<std::uint32_t, 3> workgroup{1, 1, 1};
  std::array<std::uint32_t, 3> grid{0, 1, 1};  // workgroups per axis; grid[0] == 0: nothing runs
  bool tail_guard = false;                     // invocations with InvocationId.x >= N do nothing
  std::uint32_t fixpoint_iterations = 1;

  std::uint64_t workgroup_invocations() const;  // workgroup product
  std::uint64_t workgroup_count() const;        // grid product
  bool empty() const { return workgroup_count() == 0; }
};

// True when the program runs in full-workgroup mode regardless of config: it has a Barrier, a
// workgroup buffer or a subgroup op (SPEC §3 "Tail guard").
bool needs_full_workgroups(const Program& program);
// True when the program has a Barrier(grid_sync) statement.
bool has_grid_sync(const Program& program);
// True when the program uses a subgroup op (ballot, shuffle, reduce). SubgroupLane and
// SubgroupSize are builtins, defined for any workgroup size, and do not count.
bool uses_subgroup_ops(const Program& program);

// What resolve_geometry needs to know about a program's body; compute it once per program
// (kit::CompiledProgram does) rather than walking the body on every dispatch.
struct ProgramTraits {
  bool full_workgroups = false;  // needs_full_workgroups
  bool subgroup_ops = false;     // uses_subgroup_ops
};
ProgramTraits program_traits(const Program& program);

// Resolve the geometry of a dispatch. `buffer_elements[i]` is the element count bound to
// program.buffers[i] (for workgroup buffers, their declared count). Throws vyre::Error
// (VYRE_ERR_INVALID_ARGUMENT or VYRE_ERR_LIMIT) when the config is inconsistent: a zero grid or
// workgroup axis, a workgroup product over 1024, a multi-dimensional workgroup without a grid, a
// grid product or invocation count that overflows, fixpoint_iterations == 0, or a subgroup
// program whose workgroup is not a multiple of 32.
LaunchGeometry resolve_geometry(const Program& program, const DispatchConfig& config,
                                std::span<const std::uint64_t> buffer_elements);
// The same with the program's traits already known (`traits` must be program_traits(program)).
LaunchGeometry resolve_geometry(const Program& program, const DispatchConfig& config,
                                std::span<const std::uint64_t> buffer_elements,
                                const ProgramTraits& traits);

}  // namespace vyre
