// Running one workgroup: statements walk the compiled structure with the set of active lanes;
// If splits it, Loop shrinks it per iteration, Return removes lanes until the phase ends.
#include "worker.hpp"

#include <algorithm>
#include <cstring>
#include <new>

#include <fmt/format.h>

#include "vyre/error.hpp"

namespace vyre::refcpu {

namespace {
constexpr std::uint32_t kSetsPerDepth = 4;  // then, else, after-return, loop
constexpr std::uint32_t kThen = 0, kElse = 1, kAfterReturn = 2, kLoop = 3;
}  // namespace

Worker::Worker(const Executable& exe, const LaunchGeometry& geometry, std::span<const MemView> buffers,
               const StopCondition& stop)
    : exe_(exe), geometry_(geometry), stop_(stop), mem_(buffers.begin(), buffers.end()) {
  lanes_ = static_cast<std::uint32_t>(geometry.workgroup_invocations());
  try {
    regs_.assign(static_cast<std::size_t>(exe.reg_count) * lanes_, 0);
    returned_.assign(lanes_, 0);
    lane_buffers_.assign(static_cast<std::size_t>(exe.max_depth + 1) * kSetsPerDepth * lanes_, 0);
    for (const WorkgroupBuffer& b : exe.workgroup_buffers) {
      std::uint64_t words = (b.count * b.element_size + 7) / 8;
      workgroup_memory_.emplace_back(words, 0);
      mem_[b.index] = MemView{reinterpret_cast<std::byte*>(workgroup_memory_.back().data()), b.count};
    }
  } catch (const std::bad_alloc&) {
    fail(VYRE_ERR_OUT_OF_MEMORY,
         fmt::format("reference_cpu could not allocate the state of a workgroup of {} invocations "
                     "({} registers, {} workgroup buffers)", lanes_, exe.reg_count,
                     exe.workgroup_buffers.size()),
         "use smaller workgroup buffers or a smaller program, or free host memory");
  }
  const auto& wg = geometry.workgroup;
  for (auto& axis : local_) axis.resize(lanes_);
  for (std::uint32_t i = 0; i < lanes_; ++i) {
    local_[0][i] = i % wg[0];
    local_[1][i] = (i / wg[0]) % wg[1];
    local_[2][i] = i / (wg[0] * wg[1]);
  }
  state_.regs = regs_.data();
  state_.lanes = lanes_;
  state_.mem = mem_.data();
  state_.sites = &exe.sites;
  for (const RegFill& f : exe.dispatch_fills) fill(f);
}

void Worker::fill(const RegFill& f) {
  std::uint64_t* r = state_.reg(f.reg);
  switch (f.kind) {
    case FillKind::Constant: std::fill(r, r + lanes_, f.value); return;
    case FillKind::LocalId:
      for (std::uint32_t i = 0; i < lanes_; ++i) r[i] = local_[f.arg][i];
      return;
    case FillKind::SubgroupLane:
      for (std::uint32_t i = 0; i < lanes_; ++i) r[i] = i % 32;
      return;
    case FillKind::NumWorkgroups: std::fill(r, r + lanes_, geometry_.grid[f.arg]); return;
    case FillKind::BufLen: std::fill(r, r + lanes_, mem_[f.arg].count); return;
    case FillKind::WorkgroupId: std::fill(r, r + lanes_, state_.workgroup[f.arg]); return;
    case FillKind::InvocationId: {
      std::uint32_t base = state_.workgroup[f.arg] * geometry_.workgroup[f.arg];
      const std::uint32_t* local = local_[f.arg].data();
      for (std::uint32_t i = 0; i < lanes_; ++i) r[i] = static_cast<std::uint32_t>(base + local[i]);
      return;
    }
  }
}

std::uint16_t* Worker::lane_buffer(std::uint32_t depth, std::uint32_t slot) {
  return lane_buffers_.data() + (static_cast<std::size_t>(depth) * kSetsPerDepth + slot) * lanes_;
}

// The lanes of `src` that `keep`, written to `dst` (which may be src's own storage). Returns src
// itself when every lane is kept, and a dense set when the kept lanes are 0..k-1.
template <class Pred>
LaneSet Worker::filter(const LaneSet& src, std::uint16_t* dst, Pred&& keep) {
  std::uint32_t n = 0;
  for_lanes(src, [&](std::uint32_t i) {
    if (keep(i)) dst[n++] = static_cast<std::uint16_t>(i);
  });
  if (n == src.n) return src;
  if (n == 0 || dst[n - 1] == n - 1) return LaneSet{nullptr, n, true};
  return LaneSet{dst, n, false};
}

LaneSet Worker::initial_lanes() {
  LaneSet all{nullptr, lanes_, true};
  if (!geometry_.tail_guard) return all;
  std::uint64_t base = std::uint64_t{state_.workgroup[0]} * geometry_.workgroup[0];
  const std::uint64_t n = geometry_.n;
  if (geometry_.workgroup[1] == 1 && geometry_.workgroup[2] == 1) {
    // 1-D (the only shape the tail guard applies to): a prefix of the lanes.
    std::uint64_t active = n > base ? std::min<std::uint64_t>(n - base, lanes_) : 0;
    return LaneSet{nullptr, static_cast<std::uint32_t>(active), true};
  }
  return filter(all, lane_buffer(0, kAfterReturn), [&](std::uint32_t i) { return base + local_[0][i] < n; });
}

void Worker::run_workgroup(std::size_t phase, std::uint64_t linear) {
  const auto& grid = geometry_.grid;
  state_.workgroup[0] = static_cast<std::uint32_t>(linear % grid[0]);
  state_.workgroup[1] = static_cast<std::uint32_t>((linear / grid[0]) % grid[1]);
  state_.workgroup[2] = static_cast<std::uint32_t>(linear / (std::uint64_t{grid[0]} * grid[1]));
  for (const RegFill& f : exe_.workgroup_fills) fill(f);
  for (auto& memory : workgroup_memory_) std::fill(memory.begin(), memory.end(), 0);
  std::fill(returned_.begin(), returned_.end(), 0);
  LaneSet lanes = initial_lanes();
  invocations_ += lanes.n;
  run_body(exe_.phases[phase], lanes, 0);
}

void Worker::run_body(const std::vector<Stmt>& body, LaneSet lanes, std::uint32_t depth) {
  for (const Stmt& s : body) {
    if (lanes.n == 0) return;
    switch (s.kind) {
      case StmtKind::Code:
        for (const Instr& in : s.code) in.fn(in, state_, lanes);
        break;
      case StmtKind::If: run_if(s, lanes, depth); break;
      case StmtKind::Loop: run_loop(s, lanes, depth); break;
      case StmtKind::Return:
        for_lanes(lanes, [&](std::uint32_t i) { returned_[i] = 1; });
        return;
      case StmtKind::Barrier: check_barrier(s, lanes); break;
    }
    if (s.may_return)
      lanes = filter(lanes, lane_buffer(depth, kAfterReturn), [&](std::uint32_t i) { return returned_[i] == 0; });
  }
}

void Worker::run_if(const Stmt& s, const LaneSet& lanes, std::uint32_t depth) {
  const std::uint64_t* cond = state_.reg(s.cond);
  LaneSet then_lanes = filter(lanes, lane_buffer(depth, kThen), [&](std::uint32_t i) { return cond[i] != 0; });
  if (then_lanes.n == lanes.n) {
    run_body(s.then_body, lanes, depth + 1);
    return;
  }
  LaneSet else_lanes = filter(lanes, lane_buffer(depth, kElse), [&](std::uint32_t i) { return cond[i] == 0; });
  if (then_lanes.n != 0) run_body(s.then_body, then_lanes, depth + 1);
  if (else_lanes.n != 0) run_body(s.else_body, else_lanes, depth + 1);
}

// Lanes iterate in lockstep: each trip runs the body for the lanes whose variable is still below
// their bound (and that have not returned), then increments their variables.
void Worker::run_loop(const Stmt& s, const LaneSet& lanes, std::uint32_t depth) {
  std::uint64_t* var = state_.reg(s.var);
  const std::uint64_t* to = state_.reg(s.to);
  std::uint16_t* storage = lane_buffer(depth, kLoop);
  LaneSet trip = filter(lanes, storage, [&](std::uint32_t i) {
    return static_cast<std::uint32_t>(var[i]) < static_cast<std::uint32_t>(to[i]);
  });
  while (trip.n != 0) {
    if (--trips_until_check_ == 0) {
      trips_until_check_ = StopCondition::kLoopTripsPerCheck;
      stop_.check();
    }
    run_body(s.then_body, trip, depth + 1);
    for_lanes(trip, [&](std::uint32_t i) { var[i] = static_cast<std::uint32_t>(var[i] + 1); });
    trip = filter(trip, storage, [&](std::uint32_t i) {
      return returned_[i] == 0 && static_cast<std::uint32_t>(var[i]) < static_cast<std::uint32_t>(to[i]);
    });
  }
}

void Worker::check_barrier(const Stmt& s, const LaneSet& lanes) const {
  if (lanes.n == lanes_) return;
  fail(VYRE_ERR_EXECUTION,
       fmt::format("divergent barrier at {}: {} of the {} invocations of workgroup [{}, {}, {}] "
                   "reached it; the others returned, or are on another branch or loop iteration",
                   exe_.sites[s.site], lanes.n, lanes_, state_.workgroup[0], state_.workgroup[1],
                   state_.workgroup[2]),
       "make every invocation of the workgroup reach the same barrier statement in the same loop "
       "iteration (move the barrier out of divergent control flow, and do not return before it)");
}

}  // namespace vyre::refcpu
