// One worker's machine: the register file, workgroup memory and lane bookkeeping needed to run
// workgroups of one dispatch, one whole workgroup at a time (SIMT; exec.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "executable.hpp"
#include "vyre/stop_condition.hpp"
#include "vyre/geometry.hpp"

namespace vyre::refcpu {

class Worker {
 public:
  // `buffers` has one view per declared buffer (workgroup entries are replaced by this worker's
  // own memory). Throws vyre::Error (VYRE_ERR_OUT_OF_MEMORY) when the state cannot be allocated.
  // Loops check `stop` every StopCondition::kLoopTripsPerCheck trips; it must outlive the worker.
  Worker(const Executable& exe, const LaunchGeometry& geometry, std::span<const MemView> buffers,
         const StopCondition& stop);

  // Run phase `phase` of the workgroup with linear id `linear` (x fastest). Throws vyre::Error
  // (VYRE_ERR_EXECUTION) on a divergent barrier or an incomplete subgroup, and the stop
  // condition's error when it fires inside a loop.
  void run_workgroup(std::size_t phase, std::uint64_t linear);

  // Invocations that started (passed the tail guard) in this worker so far.
  std::uint64_t invocations() const { return invocations_; }

 private:
  void fill(const RegFill& f);
  LaneSet initial_lanes();
  void run_body(const std::vector<Stmt>& body, LaneSet lanes, std::uint32_t depth);
  void run_if(const Stmt& s, const LaneSet& lanes, std::uint32_t depth);
  void run_loop(const Stmt& s, const LaneSet& lanes, std::uint32_t depth);
  void check_barrier(const Stmt& s, const LaneSet& lanes) const;
  std::uint16_t* lane_buffer(std::uint32_t depth, std::uint32_t slot);
  template <class Pred>
  LaneSet filter(const LaneSet& src, std::uint16_t* dst, Pred&& keep);

  const Executable& exe_;
  const LaunchGeometry& geometry_;
  const StopCondition& stop_;
  std::uint32_t trips_until_check_ = StopCondition::kLoopTripsPerCheck;
  std::uint32_t lanes_ = 0;
  std::vector<std::uint64_t> regs_;
  std::vector<std::uint8_t> returned_;
  std::vector<std::uint16_t> lane_buffers_;   // (max_depth + 1) * 4 sets of `lanes_` entries
  std::vector<std::uint32_t> local_[3];       // LocalId per axis, per lane
  std::vector<std::vector<std::uint64_t>> workgroup_memory_;
  std::vector<MemView> mem_;
  ExecState state_;
  std::uint64_t invocations_ = 0;
};

}  // namespace vyre::refcpu
