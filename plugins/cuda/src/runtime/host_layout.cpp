#include "runtime/host_layout.hpp"

#include <cstring>

#include "runtime/byte_ranges.hpp"

namespace vyre::cuda {
namespace {

constexpr std::uint64_t kAlignment = 256;

std::uint64_t buffer_bytes(const BufferDecl& decl, std::uint64_t elements) {
  if (decl.access == Access::Workgroup) return 0;
  return elements * byte_size(decl.element);
}

}  // namespace

HostLayout host_layout(const kit::HostDispatch& dispatch, const ExecPlan& plan) {
  const Program& program = dispatch.program->program();
  HostLayout layout;
  layout.sizes.reserve(program.buffers.size() + 1);
  for (std::size_t i = 0; i < program.buffers.size(); ++i) {
    layout.sizes.push_back(buffer_bytes(program.buffers[i], dispatch.buffer_elements[i]));
  }
  layout.sizes.push_back(plan.grid_barrier_bytes);
  layout.offsets = pack_offsets(layout.sizes, kAlignment, &layout.total);
  return layout;
}

HostStaging choose_host_staging(const Runtime& runtime, const ExecPlan& plan, const HostLayout& layout) {
  if (plan.elementwise() && runtime.mapped_host_dispatch() && layout.total <= kMappedMaxBytes) {
    return HostStaging::Mapped;
  }
  return layout.total <= kImageMaxBytes ? HostStaging::Image : HostStaging::Copies;
}

std::vector<drv::CUdeviceptr> layout_pointers(const Program& program, drv::CUdeviceptr base,
                                              const HostLayout& layout) {
  std::vector<drv::CUdeviceptr> pointers;
  pointers.reserve(layout.offsets.size());
  for (std::size_t i = 0; i < program.buffers.size(); ++i) {
    pointers.push_back(program.buffers[i].access == Access::Workgroup ? 0 : base + layout.offsets[i]);
  }
  pointers.push_back(base + layout.offsets.back());
  return pointers;
}

void build_image(const kit::HostDispatch& dispatch, const HostLayout& layout, std::byte* image) {
  const Program& program = dispatch.program->program();
  for (std::size_t b = 0; b < layout.sizes.size(); ++b) {  // every buffer but the inputs, and the barrier
    if (b < program.buffers.size() && is_host_input(program.buffers[b].access)) continue;
    if (layout.sizes[b] != 0) std::memset(image + layout.offsets[b], 0, layout.sizes[b]);
  }
  const auto& inputs = dispatch.program->input_buffers();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::size_t b = inputs[i];
    const kit::Bytes& input = dispatch.inputs[i];
    if (!input.empty()) std::memcpy(image + layout.offsets[b], input.data(), input.size());
    if (input.size() < layout.sizes[b]) std::memset(image + layout.offsets[b] + input.size(), 0, layout.sizes[b] - input.size());
  }
}

}  // namespace vyre::cuda
