// Running a whole dispatch: every fixpoint iteration, every phase (a grid_sync is a join between
// phases), every workgroup, spread over the thread pool where that is allowed.
#pragma once

#include <cstdint>
#include <span>

#include "executable.hpp"
#include "vyre/stop_condition.hpp"
#include "thread_pool.hpp"
#include "vyre/geometry.hpp"

namespace vyre::refcpu {

struct LaunchOptions {
  ThreadPool* pool = nullptr;  // may be null: run on the calling thread
  unsigned workers = 1;        // threads to use at most, the caller included
  bool reverse = false;        // one thread, workgroups in reverse linear order
  StopCondition stop;          // checked between iterations, phases and workgroups, and in loops
};

struct LaunchStats {
  std::uint64_t workgroups = 0;   // workgroup runs (per phase and iteration)
  std::uint64_t invocations = 0;  // invocations that started (per phase and iteration)
};

// Runs the dispatch on `buffers` (one view per declared buffer; workgroup entries ignored). Throws
// vyre::Error on a run-time error or when options.stop says so (VYRE_ERR_TIMEOUT, VYRE_ERR_CANCELLED);
// buffers may then be partly written (callers run on scratch).
LaunchStats launch(const Executable& exe, const LaunchGeometry& geometry,
                   std::span<const MemView> buffers, const LaunchOptions& options);

}  // namespace vyre::refcpu
