// Analysis: buffer placement, shared-memory layout, execution mode and grid_sync phases.
#include "codegen/program_layout.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "vyre/error.hpp"
#include "vyre/geometry.hpp"

namespace vyre::cuda::codegen {

namespace {

constexpr std::uint64_t kSharedAlignment = 16;

std::uint64_t align_up(std::uint64_t value, std::uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// Places each workgroup buffer in the shared block, 16-byte aligned, and returns the block's size.
std::uint64_t place_workgroup_buffers(const Program& program, std::vector<BufferSlot>& slots) {
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < program.buffers.size(); ++i) {
    const BufferDecl& decl = program.buffers[i];
    if (decl.access != Access::Workgroup) continue;
    slots[i].workgroup = true;
    slots[i].count = decl.count;
    slots[i].shared_offset = static_cast<std::uint32_t>(std::min<std::uint64_t>(offset, UINT32_MAX));
    offset = align_up(offset + std::uint64_t{decl.count} * byte_size(decl.element), kSharedAlignment);
  }
  return offset;
}

std::vector<std::vector<const Node*>> split_phases(const Program& program) {
  std::vector<std::vector<const Node*>> phases(1);
  for (const Node& node : program.body) {
    if (node.kind == NodeKind::Barrier && node.barrier == BarrierKind::GridSync) {
      phases.emplace_back();
      continue;
    }
    phases.back().push_back(&node);
  }
  return phases;
}

}  // namespace

ProgramLayout analyze_program(const Program& program) {
  ProgramLayout layout;
  layout.program = &program;
  layout.buffer_names = BufferIndex(program);
  layout.buffers.resize(program.buffers.size());
  std::uint64_t shared = place_workgroup_buffers(program, layout.buffers);
  if (shared > kMaxStaticSharedBytes)
    fail(VYRE_ERR_LIMIT,
         fmt::format("the program's workgroup buffers need {} bytes of shared memory (16-byte "
                     "aligned), more than the {} bytes of static shared memory the CUDA backend "
                     "uses", shared, kMaxStaticSharedBytes),
         "make the workgroup buffers smaller, or keep the data in a global buffer");
  layout.shared_bytes = static_cast<std::uint32_t>(shared);
  layout.full_workgroup = needs_full_workgroups(program);
  layout.grid_sync = has_grid_sync(program);
  layout.phases = split_phases(program);
  return layout;
}

std::vector<KernelParam> kernel_params(const Program& program, bool sharded, bool cooperative,
                                       const std::vector<std::uint32_t>& covering) {
  std::vector<KernelParam> params;
  for (std::uint32_t i = 0; i < program.buffers.size(); ++i)
    if (program.buffers[i].access != Access::Workgroup)
      params.push_back({ParamKind::BufferPointer, i, 8});
  for (std::uint32_t i = 0; i < program.buffers.size(); ++i) {
    if (program.buffers[i].access == Access::Workgroup) continue;
    const bool covers = std::find(covering.begin(), covering.end(), i) != covering.end();
    params.push_back({ParamKind::ElementCount, i, 4, program.buffers[i].count, covers});
  }
  params.push_back({ParamKind::DispatchN, 0, 4});
  params.push_back({ParamKind::TailGuard, 0, 4});
  if (sharded) {
    params.push_back({ParamKind::WorkgroupBase, 0, 4});
    params.push_back({ParamKind::GridX, 0, 4});
  }
  if (cooperative) params.push_back({ParamKind::GridBarrier, 0, 8});
  return params;
}

}  // namespace vyre::cuda::codegen
