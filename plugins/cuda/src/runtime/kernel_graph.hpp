// A CUDA graph of kernel launches in a chain, built explicitly (cuGraphAddKernelNode) so the runtime
// keeps every node handle: a later replay with other bindings or counts updates the executable
// graph in place (cuGraphExecKernelNodeSetParams) instead of building it again. Sequences use it
// for their repeated steps. Cooperative launches are never put in a graph.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/context.hpp"
#include "runtime/kernel_args.hpp"
#include "runtime/launch_checks.hpp"
#include "runtime/telemetry.hpp"

namespace vyre::cuda {

struct GraphNodeSpec {
  drv::CUfunction function = nullptr;
  Dims grid{1, 1, 1};
  Dims block{1, 1, 1};
  KernelArgs args;
};

class KernelGraph {
 public:
  // Build and instantiate the chain. Throws vyre::Error on a driver failure.
  KernelGraph(const Context& context, Telemetry& telemetry, std::vector<GraphNodeSpec> nodes);
  ~KernelGraph();  // the context must be current; the graph must not be running
  KernelGraph(const KernelGraph&) = delete;
  KernelGraph& operator=(const KernelGraph&) = delete;

  // Make the next launches run `nodes`, which must have the same functions in the same order
  // (the same key()); only nodes whose grid, block or arguments differ are updated.
  void update(std::vector<GraphNodeSpec> nodes);
  void launch(drv::CUstream stream);
  std::size_t size() const { return nodes_.size(); }  // kernel nodes

  // The graph's shape: its functions in order. Graphs of equal key can be updated into each other.
  static std::string key(const std::vector<GraphNodeSpec>& nodes);

 private:
  static drv::KernelNodeParams params(GraphNodeSpec& node);

  const Context& context_;
  Telemetry& telemetry_;
  drv::CUgraph graph_ = nullptr;
  drv::CUgraphExec exec_ = nullptr;
  std::vector<drv::CUgraphNode> handles_;
  std::vector<GraphNodeSpec> nodes_;
};

// Idle graphs by key. A caller takes a graph out, updates and launches it, waits for it, and gives
// it back, so no two threads ever touch one graph. Bounded: the least recently returned go first.
class GraphCache {
 public:
  explicit GraphCache(std::size_t capacity) : capacity_(capacity) {}
  std::unique_ptr<KernelGraph> take(const std::string& key);
  void give_back(std::string key, std::unique_ptr<KernelGraph> graph);
  void clear();  // the context must be current
  std::size_t size() const;

 private:
  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::list<std::pair<std::string, std::unique_ptr<KernelGraph>>> idle_;  // front = most recent
};

}  // namespace vyre::cuda
