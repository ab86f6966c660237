// The elementwise entry: a second entry of the same program in which each thread runs
// kElementwiseLanes consecutive invocations, with one 16-byte access per buffer per statement
// (memory-bound programs issue a quarter of the memory instructions and index arithmetic).
//
// When a program gets one (elementwise_shape), every condition static:
//   - no Barrier, workgroup buffer, subgroup op or grid_sync (so the tail guard applies whenever
//     the dispatch has no explicit grid), no atomic;
//   - the body is straight-line: top-level Let, Assign and Store only, at most kMaxStatements
//     statements and kMaxExpressionNodes expression nodes (the entry holds the body five times:
//     one copy per vector lane and the scalar loop; a long body would multiply the JIT's time,
//     and its cost is arithmetic, not memory instructions);
//   - every Load and Store index is the invocation index: InvocationId.x itself, or a variable
//     bound by a top-level Let to an invocation index and never assigned;
//   - the builtins used are InvocationId.x, BufLen and SubgroupSize only (nothing else that depends
//     on the launch geometry), and every loaded or stored buffer has 4- or 8-byte elements.
// Then invocation i touches element i of each buffer and nothing else, no invocation can observe
// another or the geometry, so running invocations 4t..4t+3 in thread t, statement by statement in
// lockstep, is the same computation as one invocation per thread.
//
// When the runtime uses it (runtime/exec_plan.cpp): only when the dispatch applies the tail guard
// (no explicit grid: the invocations that run are exactly InvocationId.x = 0..N-1, whatever the
// workgroup), launching ceil(N / (workgroup.x * kElementwiseLanes)) workgroups. Launched with any
// larger grid it is still correct (threads past N do nothing).
//
// Inside a thread (t = its linear thread id, base = 4t in 64 bits):
//   - vector path, when base + 4 <= min(N, BufLen of every accessed buffer) and every accessed
//     buffer's address is 16-byte aligned: per statement, one ld.global.v4 (v2 x2 for 8-byte
//     elements) per buffer it loads, the statement for each of the 4 lanes, one st.global.v4 per
//     buffer it stores. Every lane is in bounds, so no predicate is needed;
//   - scalar path otherwise (the last thread, short buffers, misaligned bindings): a loop over the
//     4 lanes running the ordinary scalar body with InvocationId.x = base + k, stopping at N; OOB
//     loads read 0 and OOB stores are dropped exactly as in the whole entry.
// Stores narrow exactly as the scalar path does (canonical NaN for floats).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "codegen/entry_builder.hpp"
#include "codegen/program_layout.hpp"
#include "lowering.hpp"
#include "vyre/ir.hpp"

namespace vyre::cuda::codegen {

inline constexpr std::uint32_t kElementwiseLanes = 4;
inline constexpr std::size_t kMaxStatements = 16;
inline constexpr std::size_t kMaxExpressionNodes = 128;
inline constexpr const char* kElementwiseEntryName = "vyre_elementwise";

struct ElementwiseShape {
  std::vector<std::size_t> accessed;  // buffers loaded or stored, ascending
};

// The shape when `program` qualifies (see above), else nothing.
std::optional<ElementwiseShape> elementwise_shape(const Program& program);

// The buffers loaded by the expressions of `node`, ascending, each once.
std::vector<std::size_t> loaded_buffers(const Program& program, const Node& node);

// The elementwise entry of a program that has `shape`. Sharded: it takes the shard parameters and
// its invocations start at workgroup_base * workgroup.x; the vector path then also needs that start
// to keep 16-byte alignment (a multiple of 4), else the lanes take the scalar path.
EmittedEntry emit_elementwise_entry(const ProgramLayout& layout, const Target& target,
                                    const ElementwiseShape& shape, bool sharded);

}  // namespace vyre::cuda::codegen
