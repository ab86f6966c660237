// Workgroup memory whose zero start is unobservable (issue 11 §2). SPEC: a workgroup buffer is zero
// at workgroup start (and again after a grid_sync), so the emitter zeroes the shared block and
// waits on a barrier before a phase's first statement (codegen/shared_memory.cpp). Programs that
// reduce through workgroup memory usually overwrite every element before reading any, e.g.
//
//     if subgroup_lane == 0 { partial[local_id.x / 32] = r }   // 8 subgroups: partial[0..7]
//     barrier
//     ... partial[w] ...
//
// and there the zeroes are never read: dropping the fill and its barrier changes no result.
//
// The analysis proves it per phase (the top-level statements between grid_syncs) and per workgroup
// buffer, for a module specialised to one launch workgroup size:
//   - walking the phase's top-level statements in order, no statement reads the buffer (a Load or
//     an Atomic on it, anywhere inside the statement) before a *covering store* followed by a
//     top-level workgroup Barrier, and none reads it between the two;
//   - a covering store is a top-level `Store(b, i, v)`, or a top-level `If(c, then)` with a
//     `Store(b, i, v)` directly in `then`, such that evaluating c and i for every local invocation
//     of the workgroup (by SPEC's total integer semantics, over literals, local ids, the subgroup
//     lane, never-assigned variables bound to such expressions and pure operators of them) stores
//     to every element 0 .. count - 1. Nothing before it may Return (every invocation reaches it);
//   - a phase that never reads the buffer needs no zeroes either.
// Anything the evaluator does not know (loads, subgroup ops, WorkgroupId, assigned variables, 64-bit
// or float values) makes the store non-covering, and the buffer keeps its zero fill.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "vyre/ir.hpp"

namespace vyre::cuda::optimize {

// For each buffer of `program` (by index): true when it is a workgroup buffer whose zero start
// the statements of `phase` (a phase's top-level statements, in order) can never observe, for
// launches of exactly `workgroup` invocations. False for every other buffer.
std::vector<bool> zero_start_unobserved(const Program& program, const std::vector<const Node*>& phase,
                                        const std::array<std::uint32_t, 3>& workgroup);

}  // namespace vyre::cuda::optimize
