#include "runtime/captured_graph.hpp"

#include "vyre/error.hpp"

namespace vyre::cuda {

std::unique_ptr<CapturedGraph> CapturedGraph::capture(const Context& context, Telemetry& telemetry,
                                                      drv::CUstream stream,
                                                      const std::function<void()>& record) {
  const Driver& driver = context.driver();
  std::unique_ptr<CapturedGraph> graph(new CapturedGraph(context, telemetry));
  driver.check(driver.cuStreamBeginCapture(stream, drv::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
               "cuStreamBeginCapture");
  try {
    record();
  } catch (...) {
    drv::CUgraph partial = nullptr;
    driver.cuStreamEndCapture(stream, &partial);
    if (partial != nullptr) driver.cuGraphDestroy(partial);
    throw;
  }
  driver.check(driver.cuStreamEndCapture(stream, &graph->graph_), "cuStreamEndCapture");
  driver.check(driver.cuGraphInstantiateWithFlags(&graph->exec_, graph->graph_, 0),
               "cuGraphInstantiateWithFlags");
  Telemetry::add(telemetry.graph_builds);
  return graph;
}

CapturedGraph::~CapturedGraph() {
  const Driver& driver = context_.driver();
  if (exec_ != nullptr) driver.cuGraphExecDestroy(exec_);
  if (graph_ != nullptr) driver.cuGraphDestroy(graph_);
}

void CapturedGraph::launch(drv::CUstream stream) {
  if (exec_ == nullptr || stream == nullptr) {
    fail(VYRE_ERR_INTERNAL, "Graph replay without an executable graph or stream",
         "this is a bug in the vyre CUDA runtime; report it");
  }
  context_.driver().check(context_.driver().cuGraphLaunch(exec_, stream), "cuGraphLaunch");
  Telemetry::add(telemetry_.graph_launches);
}

}  // namespace vyre::cuda
