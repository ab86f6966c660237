// The contract between the PTX emitter (codegen) and the CUDA runtime side of the plugin.
//
// lower() turns a validated Program into one PTX module for one target. The runtime loads the
// module once per (fingerprint, target, codegen config), then launches its entries. Kernel
// parameters, in this order, for every entry:
//   1. one .u64 device pointer per non-workgroup buffer, in declaration order;
//   2. one .u32 element count per non-workgroup buffer, in declaration order (BufLen);
//   3. .u32 N, the dispatch element count (SPEC §3);
//   4. .u32 tail_guard: 1 when invocations with InvocationId.x >= N must do nothing, else 0;
//   5. sharded modules only (LowerOptions::sharded): .u32 workgroup_base, the WorkgroupId.x of the
//      launch's first workgroup, and .u32 grid_x, NumWorkgroups.x of the whole dispatch. The launch
//      then runs workgroups [workgroup_base, workgroup_base + its grid x) of a grid_x-wide dispatch
//      (vyre/shard.hpp); the elementwise entry's invocations start at workgroup_base * workgroup.x;
//   6. cooperative entries only: .u64 pointer to `grid_barrier_bytes` of zeroed device memory,
//      private to this launch (no module-level state, so launches never serialize on it).
// `KernelEntry::params` lists the same layout explicitly (it is also written into AOT manifests).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vyre/ir.hpp"

namespace vyre::cuda {

struct Target {
  std::uint32_t sm = 90;  // compute capability major * 10 + minor: 90 is sm_90

  std::string name() const;           // "sm_90"
  std::string ptx_isa_version() const;  // the lowest PTX ISA that supports the target, e.g. "7.8"
};

// "sm_90" or "90" -> Target{90}; throws vyre::Error (VYRE_ERR_INVALID_ARGUMENT) otherwise.
Target parse_target(std::string_view text);

enum class ParamKind : std::uint8_t {
  BufferPointer,
  ElementCount,
  DispatchN,
  TailGuard,
  WorkgroupBase,
  GridX,
  GridBarrier
};

struct KernelParam {
  ParamKind kind = ParamKind::BufferPointer;
  std::uint32_t buffer = 0;  // BufferPointer/ElementCount: index into Program::buffers
  std::uint32_t bytes = 8;   // 8 for pointers, 4 for u32 values
  // ElementCount of a buffer declared with count > 0: that count, which every launch must pass
  // (the optimizer proves accesses against it; kernel_args.cpp refuses any other value). 0: the
  // buffer is runtime-sized, any count is passed.
  std::uint32_t declared_count = 0;
  // ElementCount of a covering buffer (LowerOptions::covering): every launch must apply the tail
  // guard and pass a count of at least N (kernel_args.cpp refuses any other launch).
  bool covers_n = false;
};

struct KernelEntry {
  std::string name;                  // the .entry name
  std::vector<KernelParam> params;   // see the layout above
  std::uint64_t shared_bytes = 0;    // static shared memory (workgroup buffers + scratch)
  bool cooperative = false;          // launch with cuLaunchCooperativeKernel (has a grid barrier)
  // Invocations each thread runs: 1, or kElementwiseLanes for the elementwise entry, whose
  // launch needs only ceil(N / (workgroup.x * invocations_per_thread)) workgroups.
  std::uint32_t invocations_per_thread = 1;
};

struct LoweredProgram {
  std::string target;  // "sm_90"
  std::string ptx;     // one module holding every entry below
  // The whole program in one entry. For a grid_sync program it is cooperative and uses a grid
  // barrier; the runtime uses it when the grid fits co-resident on the device.
  KernelEntry whole;
  // grid_sync programs only: one entry per phase (the statements between top-level grid_syncs),
  // launched in order on one stream when the grid cannot be co-resident. Empty otherwise.
  std::vector<KernelEntry> phases;
  std::uint32_t grid_barrier_bytes = 0;  // state the cooperative entry needs (0 if none)
  // Elementwise programs only (codegen/elementwise.hpp says which): the same program with several
  // consecutive invocations per thread and 16-byte accesses. The runtime may launch it instead of
  // `whole` when the dispatch applies the tail guard (no explicit grid); AOT bundles use `whole`.
  std::optional<KernelEntry> elementwise;
  // The buffers of LowerOptions::covering whose fact the module's proofs use (ascending; their
  // ElementCount parameters are covers_n): every launch must have them.
  std::vector<std::uint32_t> covering;
};

struct LowerOptions {
  // Every entry takes the shard parameters (layout item 5), so one launch can run a contiguous
  // x-range of the dispatch's workgroups with global ids (sharded dispatch over a device group).
  bool sharded = false;
  // The workgroup size (x, y, z) of every launch of the module, when known: the optimizer bounds
  // LocalId by it (optimize/value_range.hpp) and every entry declares `.reqntid` with it, so a
  // launch with another size fails rather than run accesses proved in bounds for this one. The
  // runtime lowers one module per effective workgroup size (workgroup_override included). Unset:
  // no `.reqntid`, and LocalId is only bounded by CUDA's limit of 1024.
  std::optional<std::array<std::uint32_t, 3>> workgroup = std::nullopt;
  // Run the optimizer (plugins/cuda/src/optimize/) and paste math-library functions at their uses
  // (codegen/math_call.cpp). false: every load, store and atomic keeps its bounds predicate and
  // every math use is a call, as before the optimizer existed (tests, A/B measurements).
  bool optimize = true;
  // Global buffers (indices into Program::buffers, ascending) that cover every
  // launch of the module: each launch applies the tail guard and binds each of them with at least
  // N elements, so an access at InvocationId.x is in bounds (optimize/value_range.hpp) and loses
  // its predicate. Their ElementCount parameters say so (KernelParam::covers_n). The runtime picks
  // the module per dispatch by the facts the dispatch has (runtime/exec_plan.cpp). Ignored without
  // the optimizer and for programs in full-workgroup mode.
  std::vector<std::uint32_t> covering = {};
};

// Lower a validated program for `target`. Throws vyre::Error: VYRE_ERR_UNSUPPORTED if the program
// uses an op the emitter does not lower (the plugin declares only ops it lowers).
LoweredProgram lower(const Program& program, const Target& target, const LowerOptions& options = {});

// Every global (non-workgroup) buffer of `program`, ascending: the covering the runtime offers a
// program's first module (lower() keeps those its proofs use: LoweredProgram::covering).
std::vector<std::uint32_t> global_buffers(const Program& program);

// The op ids lower() handles for `target` (what the plugin declares at registration).
std::vector<std::string> lowered_ops(const Target& target);

}  // namespace vyre::cuda
