// One input shape of a compiled pipeline (the element count bound to each buffer). Its staging is
// the one a plain host dispatch would choose (host_layout.hpp), and it runs the way that was
// measured fastest on the H200 (bench/NOTES.md, change 7):
//   - mapped (small elementwise programs): everything computed once (plan, layout, pinned block,
//     bindings) and the launches built once into a kernel graph, replayed on the shape's own stream:
//     faster than the plain dispatch (8.8-9.5 us against 9.3-9.6 for bench P2);
//   - image and copies: a plain host dispatch (HostRun). A graph of the uploads, launches and
//     readbacks, captured once and replayed, was slower (image ~19 us against 13-20, copies 1.5%):
//     it stays available for measurement with VYRE_CUDA_PIPELINE_CAPTURE=1 (captured on a private
//     stream, since pooled streams carry deferred fences, and replayed on pooled streams).
//   - cooperative plans, VYRE_CUDA_DISABLE_GRAPHS=1, or a graph the driver refused (counted in
//     graph_fallbacks): the shape's work queued at every dispatch as a plain dispatch queues it.
// A graph-replayed dispatch stages the inputs on the host, replays, records the fence, waits for it
// and copies the outputs out: nothing is captured or instantiated per call, and since the shape
// owns its memory, no kernel parameter ever changes. A failure drains the stream and names the
// driver call.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "runtime/captured_graph.hpp"
#include "runtime/exec_plan.hpp"
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
  // The device work of one dispatch on `stream`: once under capture, or per dispatch (direct).
  void queue(drv::CUstream stream, bool capturing);
  void stage_inputs(const kit::HostDispatch& dispatch);
  StreamLease dispatch_stream();
  void replay(drv::CUstream stream);
  void wait(drv::CUstream stream);
  void count_dispatch();
  void deliver(const kit::HostDispatch& dispatch);

  std::shared_ptr<Runtime> runtime_;
  std::mutex mutex_;
  bool plain_ = false;  // dispatched exactly as a plain host dispatch (HostRun)
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
  StreamLease own_stream_;  // mapped: the stream every dispatch of the shape runs on
  EventRef fence_;
  std::unique_ptr<KernelGraph> kernels_;      // mapped
  std::unique_ptr<CapturedGraph> captured_;   // image, copies
};

}  // namespace vyre::cuda
