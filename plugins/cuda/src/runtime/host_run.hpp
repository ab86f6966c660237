// A dispatch on host buffers. Every check happens before the first copy; the caller's outputs are
// written only after the fence reports success. Sync, async and timed dispatch are this one path.
// The buffers are laid out in one block (each 256-byte aligned, declaration order, then the grid
// barrier), staged in one of three ways, chosen per dispatch (the results are the same):
//   - mapped: a small elementwise dispatch (plan.elementwise(), layout <= kMappedMaxBytes, the
//     device maps host memory) runs on its pinned staging block directly: inputs copied in and
//     outputs zeroed by the host, one launch, the fence, outputs copied out. Each element crosses
//     the bus once each way, as with copies, but without copy-engine work or its latency; an
//     elementwise kernel touches each element a bounded number of times, so no re-reads;
//   - image: a small layout (<= kImageMaxBytes): the whole block (inputs, zeroed outputs) built in
//     pinned memory and copied with one H2D; one D2H of the span covering every output range;
//   - copies: otherwise, one H2D per input, a memset per output, one D2H per output range.
#pragma once

#include <memory>

#include "runtime/device_work.hpp"
#include "runtime/exec_plan.hpp"
#include "runtime/host_layout.hpp"

namespace vyre::cuda {

class HostRun final : public DeviceWork {
 public:
  // Check and queue `dispatch`. With `timed`, events bracket the device work for device_ns.
  static std::unique_ptr<HostRun> start(std::shared_ptr<Runtime> runtime, const kit::HostDispatch& dispatch,
                                        bool timed);
  ~HostRun() override { finish_before_destroy(); }

  // After wait(): the timing of this dispatch (device time only when started timed).
  vyre::Timing timing() const;

 private:
  struct OutputCopy {
    kit::MutableBytes dst;
    std::uint64_t staging_offset = 0;
  };
  HostRun(std::shared_ptr<Runtime> runtime, const kit::HostDispatch& dispatch);
  void queue(const kit::HostDispatch& dispatch, const ExecPlan& plan, bool timed, const StopCondition& stop);
  std::vector<drv::CUdeviceptr> stage_mapped(const kit::HostDispatch& dispatch, const HostLayout& layout);
  std::vector<drv::CUdeviceptr> stage_image(const kit::HostDispatch& dispatch, const HostLayout& layout);
  std::vector<drv::CUdeviceptr> stage_copies(const kit::HostDispatch& dispatch, const HostLayout& layout);
  void read_back(const kit::HostDispatch& dispatch, const HostLayout& layout, HostStaging staging);
  void on_success() override;

  std::shared_ptr<const kit::CompiledProgram> program_;  // alive while in flight
  std::vector<OutputCopy> outputs_;
  std::vector<drv::CUdeviceptr> pointers_;        // per buffer, where the kernel sees it
  std::vector<std::uint64_t> staging_offsets_;    // copies staging: inputs, then output ranges
  Block staging_;
  Block device_;
  DispatchTimer timer_;  // timed: the device time is read before the outputs are delivered
};

}  // namespace vyre::cuda
