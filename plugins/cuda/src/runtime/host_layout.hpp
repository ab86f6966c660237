// How a host dispatch's buffers sit in one block (each 256-byte aligned, declaration order, then
// the grid barrier), and which of the three stagings moves them (host_run.hpp says what each
// does). Shared by one-off host dispatches (HostRun) and compiled pipelines, which compute it once
// per input shape.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/exec_plan.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::cuda {

enum class HostStaging { Mapped, Image, Copies };

// Mapped staging: up to this many bytes in the layout (the kernel reads and writes them over the
// bus; small dispatches are latency-bound, so no copy-engine round trips is what counts).
inline constexpr std::uint64_t kMappedMaxBytes = 256 * 1024;
// Image staging: one H2D of the whole layout (zeroed outputs included) up to this size.
inline constexpr std::uint64_t kImageMaxBytes = 1024 * 1024;

struct HostLayout {
  std::vector<std::uint64_t> sizes;    // per buffer (0 for workgroup buffers), then the barrier
  std::vector<std::uint64_t> offsets;  // the same, in the block
  std::uint64_t total = 0;
};

HostLayout host_layout(const kit::HostDispatch& dispatch, const ExecPlan& plan);

HostStaging choose_host_staging(const Runtime& runtime, const ExecPlan& plan, const HostLayout& layout);

// Addresses of the layout's buffers (0 for workgroup buffers), then of the barrier, for a block
// at `base`.
std::vector<drv::CUdeviceptr> layout_pointers(const Program& program, drv::CUdeviceptr base,
                                              const HostLayout& layout);

// The layout's image in `image` (pinned memory): each input at its offset, the rest of every
// buffer and the barrier zeroed (alignment gaps are left as they are).
void build_image(const kit::HostDispatch& dispatch, const HostLayout& layout, std::byte* image);

}  // namespace vyre::cuda
