// Repeated identical launches replayed as one-node graphs. On the drivers measured, replaying an
// instantiated graph costs less host time than cuLaunchKernel (H200, driver 580: cuGraphLaunch of
// a one-kernel graph 1.47 us, cuLaunchKernel 2.33 us; bench/NOTES.md), so a launch that repeats
// the previous launch of the same function exactly (grid, block, every argument value) goes
// through a graph built for it on its second occurrence; any other launch goes direct and becomes
// the one remembered. Same stream order either way: cuGraphLaunch runs after earlier work on the
// stream and before later work.
//
// Thread-safe: one mutex, held while a launch is queued, so no graph is ever launched or destroyed
// by two threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "runtime/context.hpp"
#include "runtime/kernel_args.hpp"
#include "runtime/launch_checks.hpp"
#include "runtime/telemetry.hpp"

namespace vyre::cuda {

class RepeatLaunches {
 public:
  RepeatLaunches(const Context& context, Telemetry& telemetry) : context_(context), telemetry_(telemetry) {}
  ~RepeatLaunches();  // the context must be current
  RepeatLaunches(const RepeatLaunches&) = delete;
  RepeatLaunches& operator=(const RepeatLaunches&) = delete;

  // Queue one non-cooperative launch on `stream` (through the graph or direct); the driver's
  // result of the call that queued it, whose name goes to *call ("cuGraphLaunch", "cuLaunchKernel").
  drv::CUresult launch(drv::CUfunction function, const Dims& grid, const Dims& block, KernelArgs& args,
                       drv::CUstream stream, const char** call);

  // Drop every graph (the context must be current).
  void clear();

 private:
  struct Entry {
    Dims grid{};
    Dims block{};
    std::vector<std::uint64_t> values;
    drv::CUgraph graph = nullptr;
    drv::CUgraphExec exec = nullptr;
    bool graph_failed = false;  // building it failed once: this launch always goes direct
  };
  static constexpr std::size_t kMaxEntries = 256;

  bool same(const Entry& entry, const Dims& grid, const Dims& block, const KernelArgs& args) const;
  void build(Entry& entry, drv::CUfunction function, const KernelArgs& args);
  void destroy(Entry& entry);

  const Context& context_;
  Telemetry& telemetry_;
  std::mutex mutex_;
  std::unordered_map<drv::CUfunction, Entry> entries_;
};

}  // namespace vyre::cuda
