#include "runtime/kernel_graph.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "vyre/error.hpp"

namespace vyre::cuda {

drv::KernelNodeParams KernelGraph::params(GraphNodeSpec& node) {
  return kernel_node_params(node.function, node.grid, node.block, node.args);
}

KernelGraph::KernelGraph(const Context& context, Telemetry& telemetry, std::vector<GraphNodeSpec> nodes)
    : context_(context), telemetry_(telemetry), nodes_(std::move(nodes)) {
  const Driver& driver = context_.driver();
  driver.check(driver.cuGraphCreate(&graph_, 0), "cuGraphCreate");
  try {
    handles_.reserve(nodes_.size());
    for (GraphNodeSpec& node : nodes_) {
      const drv::KernelNodeParams node_params = params(node);
      drv::CUgraphNode handle = nullptr;
      const drv::CUgraphNode* dependency = handles_.empty() ? nullptr : &handles_.back();
      driver.check(driver.cuGraphAddKernelNode(&handle, graph_, dependency, handles_.empty() ? 0 : 1,
                                               &node_params),
                   "cuGraphAddKernelNode");
      handles_.push_back(handle);
    }
    driver.check(driver.cuGraphInstantiateWithFlags(&exec_, graph_, 0), "cuGraphInstantiateWithFlags");
  } catch (...) {
    driver.cuGraphDestroy(graph_);
    throw;
  }
  Telemetry::add(telemetry_.graph_builds);
}

KernelGraph::~KernelGraph() {
  const Driver& driver = context_.driver();
  if (exec_ != nullptr) driver.cuGraphExecDestroy(exec_);
  if (graph_ != nullptr) driver.cuGraphDestroy(graph_);
}

void KernelGraph::update(std::vector<GraphNodeSpec> nodes) {
  if (nodes.size() != nodes_.size()) {
    fail(VYRE_ERR_INTERNAL,
         fmt::format("Graph update with {} nodes for a graph of {}", nodes.size(), nodes_.size()),
         "this is a bug in the vyre CUDA runtime's graph cache (keys must match shapes); report it");
  }
  const Driver& driver = context_.driver();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    GraphNodeSpec& next = nodes[i];
    const GraphNodeSpec& current = nodes_[i];
    if (next.grid == current.grid && next.block == current.block &&
        std::ranges::equal(next.args.values(), current.args.values())) {
      continue;
    }
    const drv::KernelNodeParams node_params = params(next);
    driver.check(driver.cuGraphExecKernelNodeSetParams(exec_, handles_[i], &node_params),
                 "cuGraphExecKernelNodeSetParams");
    nodes_[i] = std::move(next);
    Telemetry::add(telemetry_.graph_updates);
  }
}

void KernelGraph::launch(drv::CUstream stream) {
  if (exec_ == nullptr || stream == nullptr) {
    fail(VYRE_ERR_INTERNAL, "Graph launch without an executable graph or stream",
         "this is a bug in the vyre CUDA runtime; report it");
  }
  context_.driver().check(context_.driver().cuGraphLaunch(exec_, stream), "cuGraphLaunch");
  Telemetry::add(telemetry_.graph_launches);
}

std::string KernelGraph::key(const std::vector<GraphNodeSpec>& nodes) {
  std::string key;
  for (const GraphNodeSpec& node : nodes) {
    key += fmt::format("{:x};", reinterpret_cast<std::uintptr_t>(node.function));
  }
  return key;
}

std::unique_ptr<KernelGraph> GraphCache::take(const std::string& key) {
  std::lock_guard lock(mutex_);
  for (auto it = idle_.begin(); it != idle_.end(); ++it) {
    if (it->first != key) continue;
    std::unique_ptr<KernelGraph> graph = std::move(it->second);
    idle_.erase(it);
    return graph;
  }
  return nullptr;
}

void GraphCache::give_back(std::string key, std::unique_ptr<KernelGraph> graph) {
  std::unique_ptr<KernelGraph> evicted;
  std::lock_guard lock(mutex_);
  idle_.emplace_front(std::move(key), std::move(graph));
  if (idle_.size() > capacity_) {
    evicted = std::move(idle_.back().second);
    idle_.pop_back();
  }
}

void GraphCache::clear() {
  std::lock_guard lock(mutex_);
  idle_.clear();
}

std::size_t GraphCache::size() const {
  std::lock_guard lock(mutex_);
  return idle_.size();
}

}  // namespace vyre::cuda
