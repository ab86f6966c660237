// Dispatch geometry (SPEC §3; docs/SEMANTICS.md "Dispatch"): N, workgroup, grid, tail guard.
#include "vyre/geometry.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "vyre/error.hpp"
#include "walk.hpp"

namespace vyre {

namespace {

constexpr std::uint64_t kU32Max = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t kMaxWorkgroupInvocations = 1024;

std::string axes(const std::array<std::uint32_t, 3>& v) {
  return fmt::format("[{}, {}, {}]", v[0], v[1], v[2]);
}

std::uint64_t product(const std::array<std::uint32_t, 3>& v) {
  return std::uint64_t{v[0]} * v[1] * v[2];
}

bool any_workgroup_buffer(const Program& program) {
  return std::any_of(program.buffers.begin(), program.buffers.end(),
                     [](const BufferDecl& d) { return d.access == Access::Workgroup; });
}

std::array<std::uint32_t, 3> checked_workgroup(const Program& program, const DispatchConfig& config,
                                               bool subgroup_ops) {
  auto workgroup = config.workgroup_override.value_or(program.workgroup_size);
  std::string_view source = config.workgroup_override ? "workgroup_override" : "workgroup_size";
  if (workgroup[0] == 0 || workgroup[1] == 0 || workgroup[2] == 0)
    fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("{} {} has a zero axis", source, axes(workgroup)),
         "give every workgroup axis a size of at least 1");
  if (product(workgroup) > kMaxWorkgroupInvocations)
    fail(VYRE_ERR_LIMIT,
         fmt::format("{} {} has {} invocations, more than 1024", source, axes(workgroup),
                     product(workgroup)),
         "use a workgroup whose x*y*z is at most 1024");
  if (subgroup_ops && product(workgroup) % 32 != 0)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         fmt::format("the program uses subgroup ops but {} {} has {} invocations, not a multiple "
                     "of 32", source, axes(workgroup), product(workgroup)),
         "use a workgroup whose x*y*z is a multiple of 32");
  return workgroup;
}

// SPEC §3: the largest host-output element count; without host outputs, the largest host input.
std::uint64_t default_elements(const Program& program, std::span<const std::uint64_t> elements) {
  bool has_outputs = !program.output_indices().empty();
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < program.buffers.size(); ++i) {
    Access access = program.buffers[i].access;
    bool counts = has_outputs ? is_host_output(access) : is_host_input(access);
    if (counts) n = std::max(n, elements[i]);
  }
  return n;
}

std::array<std::uint32_t, 3> grid_for(std::uint64_t n, const std::array<std::uint32_t, 3>& workgroup) {
  if (workgroup[1] != 1 || workgroup[2] != 1)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         fmt::format("workgroup {} is multi-dimensional but the dispatch has no grid",
                     axes(workgroup)),
         "set DispatchConfig::grid explicitly, or use a 1-D workgroup [x, 1, 1]");
  std::uint64_t groups = n / workgroup[0] + (n % workgroup[0] != 0 ? 1 : 0);
  if (groups > kU32Max)
    fail(VYRE_ERR_LIMIT,
         fmt::format("dispatching {} elements needs {} workgroups, more than 2^32-1", n, groups),
         "dispatch fewer elements, or use a larger workgroup");
  return {static_cast<std::uint32_t>(groups), 1, 1};
}

void check_grid(const std::array<std::uint32_t, 3>& grid, const std::array<std::uint32_t, 3>& workgroup) {
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
    fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("grid {} has a zero axis", axes(grid)),
         "give every grid axis at least 1 workgroup, or leave the grid unset");
  for (int axis = 0; axis < 3; ++axis) {
    std::uint64_t invocations = std::uint64_t{grid[axis]} * workgroup[axis];
    if (invocations > kU32Max)
      fail(VYRE_ERR_LIMIT,
           fmt::format("grid {} times workgroup {} gives {} invocations on axis {}, more than "
                       "2^32-1", axes(grid), axes(workgroup), invocations, axis),
           "use fewer workgroups on that axis (InvocationId is u32)");
  }
}

}  // namespace

std::uint64_t LaunchGeometry::workgroup_invocations() const { return product(workgroup); }

std::uint64_t LaunchGeometry::workgroup_count() const { return product(grid); }

bool uses_subgroup_ops(const Program& program) {
  return detail::any_in_body(
      program.body, [](const Node&) { return false; }, detail::is_subgroup_op);
}

bool has_grid_sync(const Program& program) {
  return detail::any_in_body(
      program.body,
      [](const Node& n) { return n.kind == NodeKind::Barrier && n.barrier == BarrierKind::GridSync; },
      [](const Expr&) { return false; });
}

bool needs_full_workgroups(const Program& program) {
  if (any_workgroup_buffer(program)) return true;
  return detail::any_in_body(
      program.body, [](const Node& n) { return n.kind == NodeKind::Barrier; },
      detail::is_subgroup_op);
}

ProgramTraits program_traits(const Program& program) {
  return ProgramTraits{needs_full_workgroups(program), uses_subgroup_ops(program)};
}

LaunchGeometry resolve_geometry(const Program& program, const DispatchConfig& config,
                                std::span<const std::uint64_t> buffer_elements) {
  return resolve_geometry(program, config, buffer_elements, program_traits(program));
}

LaunchGeometry resolve_geometry(const Program& program, const DispatchConfig& config,
                                std::span<const std::uint64_t> buffer_elements,
                                const ProgramTraits& traits) {
  if (buffer_elements.size() != program.buffers.size())
    fail(VYRE_ERR_INVALID_ARGUMENT,
         fmt::format("resolve_geometry got {} buffer element counts for a program with {} buffers",
                     buffer_elements.size(), program.buffers.size()),
         "pass one element count per declared buffer, in declaration order");
  if (config.fixpoint_iterations == 0)
    fail(VYRE_ERR_INVALID_ARGUMENT, "fixpoint_iterations is 0",
         "use fixpoint_iterations >= 1 (1 runs the program once)");

  LaunchGeometry geometry;
  geometry.workgroup = checked_workgroup(program, config, traits.subgroup_ops);
  geometry.n = config.dispatch_elements.value_or(default_elements(program, buffer_elements));
  geometry.grid = config.grid ? *config.grid : grid_for(geometry.n, geometry.workgroup);
  if (config.grid) check_grid(geometry.grid, geometry.workgroup);
  if (!config.grid) check_grid({std::max(geometry.grid[0], 1u), 1, 1}, geometry.workgroup);
  geometry.tail_guard = !traits.full_workgroups && !config.grid;
  geometry.fixpoint_iterations = config.fixpoint_iterations;
  return geometry;
}

}  // namespace vyre
