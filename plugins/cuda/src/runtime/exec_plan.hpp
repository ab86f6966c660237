// How one dispatch of a program runs on the device, decided before any device work:
//   - an elementwise program (lowering.hpp) dispatched with the tail guard (no explicit grid): its
//     `elementwise` entry, on ceil(N / (workgroup.x * invocations_per_thread)) workgroups;
//   - any other program without grid_sync: its `whole` entry;
//   - a grid_sync program: `whole` launched cooperatively when the device supports it and the
//     grid fits co-resident (occupancy x SMs), else its `phases` in order on one stream;
//   - either way, fixpoint_iterations rounds of those launches on the same buffers;
//   - a shard of a group dispatch (vyre/shard.hpp): the same choice among the program's *sharded*
//     entries (CudaProgram::module_for), launched on the shard's workgroups only, with the
//     shard parameters giving every launch the global ids (lowering.hpp, layout item 5).
// plan_execution makes every device-limit check; enqueue_execution (or a graph) then runs it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "runtime/cuda_program.hpp"
#include "runtime/kernel_args.hpp"
#include "runtime/kernel_graph.hpp"
#include "runtime/runtime.hpp"
#include "vyre/geometry.hpp"
#include "vyre/shard.hpp"
#include "vyre/stop_condition.hpp"

namespace vyre::cuda {

struct ExecPlan {
  LaunchGeometry geometry;                     // the SPEC geometry the program sees
  std::array<std::uint32_t, 3> grid{0, 1, 1};  // the workgroups launched (geometry.grid, or fewer
                                               // for an entry running several invocations a thread)
  std::vector<const KernelFunction*> kernels;  // one round, in order; empty: nothing runs
  bool cooperative = false;
  std::uint64_t resident_capacity = 0;         // cooperative: blocks that fit co-resident
  std::uint32_t grid_barrier_bytes = 0;        // cooperative: barrier state per launch
  std::optional<ShardRange> shard;             // a group dispatch's shard: sharded entries

  std::uint64_t launches() const { return kernels.size() * geometry.fixpoint_iterations; }
  // Runs the program's elementwise entry: each invocation touches only its own element of each
  // buffer, a bounded number of times.
  bool elementwise() const { return kernels.size() == 1 && kernels[0]->entry.invocations_per_thread > 1; }
};

// Every device-dependent check (limits, residency). Throws vyre::Error (VYRE_ERR_LIMIT mostly)
// before any device work. The context must be current. `buffer_elements`: the element count each
// declared buffer is bound with (as make_bindings takes them), which chooses the module whose
// covering buffers (LowerOptions::covering) this dispatch has. With `shard`, only its workgroups
// run (an empty shard: nothing), through the program's sharded module (loaded here on first use).
ExecPlan plan_execution(Runtime& runtime, const CudaProgram& program, const LaunchGeometry& geometry,
                        const std::vector<std::uint64_t>& buffer_elements,
                        const std::optional<ShardRange>& shard = std::nullopt);

// Launch bindings for `program`'s buffers: pointers[i] and elements[i] per declared buffer; N and
// the tail guard from the plan (for a shard, N stops at the shard's last invocation), and the
// shard parameters.
LaunchBindings make_bindings(const ExecPlan& plan, std::vector<drv::CUdeviceptr> pointers,
                             std::vector<std::uint64_t> elements);

// Queue every launch of `plan` on `stream`. Cooperative plans need `barrier`, a device block of at
// least plan.grid_barrier_bytes; it is zeroed on the stream before each launch. `capturing`: the
// launches are being recorded into a graph (counted when the graph is replayed, not here).
// `repeats`: queue non-cooperative launches through it (repeat_launch.hpp). `stop`, when given, is
// checked before each launch: past the dispatch's deadline no further iteration or phase is
// submitted and its error (VYRE_ERR_TIMEOUT) is thrown; launches already queued still run.
void enqueue_execution(Runtime& runtime, const ExecPlan& plan, const LaunchBindings& bindings,
                       drv::CUstream stream, drv::CUdeviceptr barrier, bool capturing = false,
                       RepeatLaunches* repeats = nullptr, const StopCondition* stop = nullptr);

// The launches of a non-cooperative plan as graph nodes, in launch order.
std::vector<GraphNodeSpec> graph_nodes(const ExecPlan& plan, const LaunchBindings& bindings);

}  // namespace vyre::cuda
