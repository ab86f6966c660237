// A dispatch on host buffers: stage the inputs in pinned memory, copy them to one pooled device
// block, zero the outputs, run the plan, copy back only each output's byte range, fence. Every
// check happens before the first copy; the caller's outputs are written only after the fence
// reports success. Sync, async and timed dispatch are this one path.
#pragma once

#include <memory>

#include "runtime/device_work.hpp"
#include "runtime/execution.hpp"

namespace vyre::cuda {

class HostRun final : public DeviceWork {
 public:
  // Check and queue `dispatch`. With `timed`, events bracket the device work for device_ns.
  static std::unique_ptr<HostRun> start(std::shared_ptr<Runtime> runtime, const kit::HostDispatch& dispatch,
                                        bool timed);
  ~HostRun() override { finish_before_destroy(); }

  // After wait(): the timing of this dispatch (device time only when started timed).
  kit::Timing timing() const;

 private:
  struct OutputCopy {
    kit::MutableBytes dst;
    std::uint64_t staging_offset = 0;
  };

  HostRun(std::shared_ptr<Runtime> runtime, const kit::HostDispatch& dispatch);
  void queue(const kit::HostDispatch& dispatch, const ExecPlan& plan, bool timed);
  void on_success() override;

  std::shared_ptr<const kit::CompiledProgram> program_;  // alive while in flight
  std::vector<OutputCopy> outputs_;
  Block staging_;
  Block device_;
  EventRef timing_start_;
  EventRef timing_end_;
  std::chrono::steady_clock::time_point started_;
  std::uint64_t enqueue_ns_ = 0;
};

}  // namespace vyre::cuda
