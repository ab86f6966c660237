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
//   - copies: otherwise (large), a memset per output, and the inputs moved in chunks through a
//     two-slot pinned ring (transfer_ring.hpp) while queuing: held once (the caller's memory) plus
//     at most 2 x kTransferSlotBytes, never a pinned copy of every input. Outputs the caller
//     discards on failure (outputs_discarded_on_failure: the SDK's allocating calls) come down the
//     same ring once the fence reports success, straight into the caller's memory: held once. Their
//     device time (timed) covers the uploads and the kernels; the downloads follow the fence (they
//     are in the wall time), and a driver failure during them may leave a prefix written, which
//     the caller discards. Other outputs (dispatch_into) are staged whole in pinned memory and
//     copied out on success, so no byte of them is written unless the dispatch succeeded.
#pragma once

#include <memory>

#include "runtime/device_work.hpp"
#include "runtime/exec_plan.hpp"
#include "runtime/host_layout.hpp"
#include "runtime/transfer_ring.hpp"

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
    std::uint64_t staging_offset = 0;  // mapped and image staging: where it is in the staging block
    drv::CUdeviceptr device = 0;       // copies staging: where it is on the device
  };
  HostRun(std::shared_ptr<Runtime> runtime, const kit::HostDispatch& dispatch);
  void queue(const kit::HostDispatch& dispatch, const ExecPlan& plan, bool timed, const StopCondition& stop);
  std::vector<drv::CUdeviceptr> stage_mapped(const kit::HostDispatch& dispatch, const HostLayout& layout);
  std::vector<drv::CUdeviceptr> stage_image(const kit::HostDispatch& dispatch, const HostLayout& layout);
  std::vector<drv::CUdeviceptr> stage_copies(const kit::HostDispatch& dispatch, const HostLayout& layout);
  void read_back(const kit::HostDispatch& dispatch, const HostLayout& layout, HostStaging staging);
  void on_success() override;
  void download_outputs();  // copies staging, after the fence

  std::shared_ptr<const kit::CompiledProgram> program_;  // alive while in flight
  std::vector<OutputCopy> outputs_;
  std::vector<drv::CUdeviceptr> pointers_;        // per buffer, where the kernel sees it
  TransferRing ring_;                             // copies staging
  bool download_after_fence_ = false;             // copies staging: outputs come down in on_success
  std::vector<std::uint64_t> output_offsets_;     // copies staging otherwise: outputs in staging_
  Block staging_;
  Block device_;
  DispatchTimer timer_;  // timed: the device time is read before the outputs are delivered
};

}  // namespace vyre::cuda
