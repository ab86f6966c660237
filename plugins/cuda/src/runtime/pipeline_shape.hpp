// One input shape of a compiled pipeline (the element count bound to each buffer), with everything
// a dispatch needs computed once: the plan, the layout and its staging (chosen as a host dispatch
// would: host_layout.hpp), the memory, a private stream and fence, and how the device work is
// replayed:
//   - mapped (small elementwise programs): the kernel runs on the pinned block itself; its launches
//     are one kernel graph built once (a plain mapped dispatch replays a one-node graph too);
//   - image and copies: the uploads, launches and readbacks captured once into one graph;
//   - cooperative plans, VYRE_CUDA_DISABLE_GRAPHS=1, or a graph the driver refused (counted in
//     graph_fallbacks): the same work queued directly at every dispatch.
// A dispatch stages the inputs on the host, replays, records the fence, waits for it and copies the
// outputs out: nothing is captured or instantiated per call, and since the shape owns its memory,
// no kernel parameter ever changes. A failure drains the stream and names the driver call.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "runtime/captured_graph.hpp"
#include "runtime/execution.hpp"
#include "runtime/host_layout.hpp"
#include "runtime/kernel_graph.hpp"

namespace vyre::cuda {

class PipelineShape {
 public:
  PipelineShape(std::shared_ptr<Runtime> runtime, const kit::HostDispatch& dispatch);
  ~PipelineShape();
  PipelineShape(const PipelineShape&) = delete;
  PipelineShape& operator=(const PipelineShape&) = delete;

  // One dispatch (one at a time per shape). Writes the outputs only after the device work succeeded.
  void run(const kit::HostDispatch& dispatch);

 private:
  void allocate(const kit::HostDispatch& dispatch);
  void build_replay();
  // The device work of one dispatch on stream_: once under capture, or per dispatch (direct).
  void queue(bool capturing);
  void stage_inputs(const kit::HostDispatch& dispatch);
  void replay();
  void wait();
  void count_dispatch();
  void deliver(const kit::HostDispatch& dispatch);

  std::shared_ptr<Runtime> runtime_;
  std::mutex mutex_;
  ExecPlan plan_;
  HostLayout layout_;
  HostStaging staging_mode_ = HostStaging::Image;
  std::vector<std::size_t> inputs_;              // buffer index per host input
  std::vector<std::size_t> outputs_;             // buffer index per host output
  std::vector<std::uint64_t> output_offsets_;    // per host output: byte offset into its buffer
  std::vector<std::uint64_t> output_bytes_;      // per host output: bytes read back
  std::vector<std::uint64_t> staging_offsets_;   // per host output: where its bytes land in staging
  std::vector<std::uint64_t> input_bytes_;       // per host input
  std::vector<std::uint64_t> copy_offsets_;      // copies: per host input, its staging offset
  std::vector<std::size_t> zeroed_;             // copies: output buffers zeroed on the device
  std::uint64_t span_begin_ = 0;                 // image: the readback span
  std::uint64_t span_end_ = 0;
  LaunchBindings bindings_;
  drv::CUdeviceptr barrier_ = 0;
  Block device_;
  Block staging_;
  StreamLease stream_;
  EventRef fence_;
  std::unique_ptr<KernelGraph> kernels_;      // mapped
  std::unique_ptr<CapturedGraph> captured_;   // image, copies
};

}  // namespace vyre::cuda
