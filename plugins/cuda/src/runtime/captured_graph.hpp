// A CUDA graph recorded by stream capture: whatever a function queues on a stream (copies,
// memsets, launches) becomes one executable graph replayed with a single cuGraphLaunch. Compiled
// pipelines use it for their upload + launch + readback sequence. Capture runs in thread-local
// mode, so other threads keep using the driver freely meanwhile.
#pragma once

#include <functional>
#include <memory>

#include "runtime/context.hpp"
#include "runtime/telemetry.hpp"

namespace vyre::cuda {

class CapturedGraph {
 public:
  // Capture what `record` queues on `stream`. `record` must not allocate or synchronise (the
  // driver forbids that during capture). Throws vyre::Error; the stream is left out of capture.
  static std::unique_ptr<CapturedGraph> capture(const Context& context, Telemetry& telemetry,
                                                drv::CUstream stream,
                                                const std::function<void()>& record);
  ~CapturedGraph();  // the context must be current; the graph must not be running
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;

  void launch(drv::CUstream stream);

 private:
  CapturedGraph(const Context& context, Telemetry& telemetry) : context_(context), telemetry_(telemetry) {}

  const Context& context_;
  Telemetry& telemetry_;
  drv::CUgraph graph_ = nullptr;
  drv::CUgraphExec exec_ = nullptr;
};

}  // namespace vyre::cuda
