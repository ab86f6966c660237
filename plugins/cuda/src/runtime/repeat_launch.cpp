#include "runtime/repeat_launch.hpp"

#include <algorithm>

namespace vyre::cuda {

RepeatLaunches::~RepeatLaunches() { clear(); }

void RepeatLaunches::clear() {
  std::lock_guard lock(mutex_);
  for (auto& [function, entry] : entries_) destroy(entry);
  entries_.clear();
}

void RepeatLaunches::destroy(Entry& entry) {
  const Driver& driver = context_.driver();
  if (entry.exec != nullptr) driver.cuGraphExecDestroy(entry.exec);
  if (entry.graph != nullptr) driver.cuGraphDestroy(entry.graph);
  entry.exec = nullptr;
  entry.graph = nullptr;
}

bool RepeatLaunches::same(const Entry& entry, const Dims& grid, const Dims& block, const KernelArgs& args) const {
  return entry.grid == grid && entry.block == block && std::ranges::equal(entry.values, args.values());
}

// A one-node graph of this exact launch. A failure leaves the entry without a graph (direct
// launches then), never an error: the graph is only a cheaper way to queue the same launch.
void RepeatLaunches::build(Entry& entry, drv::CUfunction function, const KernelArgs& args) {
  const Driver& driver = context_.driver();
  KernelArgs copy = args;  // the driver copies the argument values when the node is added
  const drv::KernelNodeParams params = kernel_node_params(function, entry.grid, entry.block, copy);
  drv::CUgraphNode node = nullptr;
  const bool built = driver.cuGraphCreate(&entry.graph, 0) == drv::CUDA_SUCCESS &&
                     driver.cuGraphAddKernelNode(&node, entry.graph, nullptr, 0, &params) == drv::CUDA_SUCCESS &&
                     driver.cuGraphInstantiateWithFlags(&entry.exec, entry.graph, 0) == drv::CUDA_SUCCESS;
  if (built) {
    Telemetry::add(telemetry_.repeat_graph_builds);
    return;
  }
  if (entry.exec == nullptr && entry.graph != nullptr) driver.cuGraphDestroy(entry.graph);
  entry.graph = nullptr;
  entry.exec = nullptr;
  entry.graph_failed = true;
}

drv::CUresult RepeatLaunches::launch(drv::CUfunction function, const Dims& grid, const Dims& block,
                                     KernelArgs& args, drv::CUstream stream, const char** call) {
  const Driver& driver = context_.driver();
  std::lock_guard lock(mutex_);
  auto found = entries_.find(function);
  if (found != entries_.end() && same(found->second, grid, block, args)) {
    Entry& entry = found->second;
    if (entry.exec == nullptr && !entry.graph_failed) build(entry, function, args);
    if (entry.exec != nullptr) {
      *call = "cuGraphLaunch";
      const drv::CUresult result = driver.cuGraphLaunch(entry.exec, stream);
      if (result == drv::CUDA_SUCCESS) Telemetry::add(telemetry_.repeat_graph_launches);
      return result;
    }
  } else {
    if (found == entries_.end() && entries_.size() >= kMaxEntries) {
      for (auto& [other, entry] : entries_) destroy(entry);
      entries_.clear();
    }
    Entry& entry = entries_[function];
    destroy(entry);
    const auto values = args.values();
    entry = Entry{grid, block, std::vector<std::uint64_t>(values.begin(), values.end()), nullptr, nullptr, false};
  }
  *call = "cuLaunchKernel";
  return driver.cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2], 0, stream,
                               args.slots(), nullptr);
}

}  // namespace vyre::cuda
