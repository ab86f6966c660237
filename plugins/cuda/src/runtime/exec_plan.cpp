#include "runtime/exec_plan.hpp"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runtime/launch_checks.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda {
namespace {

std::uint64_t residency_of(Runtime& runtime, const KernelFunction& kernel, const LaunchGeometry& geometry) {
  int blocks_per_sm = 0;
  const auto threads = static_cast<int>(geometry.workgroup_invocations());
  runtime.driver().check(runtime.driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(
                             &blocks_per_sm, kernel.function, threads, 0),
                         "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  return cooperative_capacity(blocks_per_sm, runtime.device().multiprocessors);
}

void check_kernel(Runtime& runtime, const KernelFunction& kernel, const ExecPlan& plan) {
  check_geometry(runtime.device(), kernel.entry.name, plan.grid, plan.geometry.workgroup,
                 kernel.static_shared_bytes, kernel.max_threads_per_block);
}

std::uint64_t launched_workgroups(const ExecPlan& plan) {
  return std::uint64_t{plan.grid[0]} * plan.grid[1] * plan.grid[2];
}

void check_dispatch_size(const LaunchGeometry& geometry) {
  if (geometry.n <= UINT32_MAX) return;
  fail(VYRE_ERR_LIMIT,
       fmt::format("The dispatch covers {} elements; CUDA kernels take N as a u32", geometry.n),
       "dispatch fewer than 2^32 elements (split the work or set config.dispatch_elements)");
}

ExecPlan plan_grid_sync(Runtime& runtime, const LoadedModule& module, ExecPlan plan) {
  const bool can_cooperate = runtime.device().cooperative_launch && !runtime.force_split_grid_sync() &&
                             module.lowered->grid_barrier_bytes > 0;
  if (can_cooperate) {
    plan.resident_capacity = residency_of(runtime, module.whole, plan.geometry);
    if (plan.resident_capacity != 0 && launched_workgroups(plan) <= plan.resident_capacity) {
      plan.cooperative = true;
      plan.grid_barrier_bytes = module.lowered->grid_barrier_bytes;
      plan.kernels = {&module.whole};
      return plan;
    }
  }
  if (module.phases.empty()) {
    check_cooperative_residency(module.whole.entry.name, plan.grid, plan.geometry.workgroup,
                                plan.resident_capacity);
  }
  for (const KernelFunction& phase : module.phases) {
    check_kernel(runtime, phase, plan);
    plan.kernels.push_back(&phase);
  }
  Telemetry::add(runtime.telemetry().split_grid_sync);
  return plan;
}

// The elementwise entry when this dispatch may use it: the program has one, the dispatch applies
// the tail guard (no explicit grid, so the invocations that run are exactly 0..N-1 and none can
// observe the geometry: codegen/elementwise.hpp), the workgroup is 1-D, and the entry's own
// thread limit allows the workgroup.
const KernelFunction* elementwise_kernel(const LoadedModule& module, const LaunchGeometry& geometry) {
  if (!module.elementwise || !geometry.tail_guard) return nullptr;
  if (geometry.workgroup[1] != 1 || geometry.workgroup[2] != 1 || geometry.grid[1] != 1 || geometry.grid[2] != 1) {
    return nullptr;
  }
  const std::uint32_t limit = module.elementwise->max_threads_per_block;
  if (limit != 0 && geometry.workgroup[0] > limit) return nullptr;
  return &*module.elementwise;
}

// ceil(invocations / (workgroup.x * lanes)) workgroups: every invocation that runs (0..N-1, or a
// shard's) in some thread's lanes.
std::array<std::uint32_t, 3> elementwise_grid(const LaunchGeometry& geometry, std::uint64_t invocations,
                                              std::uint32_t lanes) {
  const std::uint64_t per_group = std::uint64_t{geometry.workgroup[0]} * lanes;
  const std::uint64_t groups = (invocations + per_group - 1) / per_group;
  return {static_cast<std::uint32_t>(std::max<std::uint64_t>(groups, 1)), 1, 1};
}

// The invocations along x that the plan runs: all of them, or its shard's.
IndexRange planned_invocations(const ExecPlan& plan) {
  if (plan.shard) return shard_invocations(plan.geometry, *plan.shard);
  return IndexRange{0, invocation_extent_x(plan.geometry)};
}

// Whether this dispatch binds buffer b with at least N elements under the tail guard: b covers it
// (LowerOptions::covering).
bool covers(std::uint32_t b, const LaunchGeometry& geometry, const std::vector<std::uint64_t>& buffer_elements) {
  return geometry.tail_guard && b < buffer_elements.size() && buffer_elements[b] >= geometry.n;
}

// The module for this dispatch: compile()'s own where the dispatch has the workgroup and every
// covering buffer it assumes (the common case, decided without allocating: this runs per
// dispatch), else the variant for the workgroup, the shard and those of compile()'s covering
// buffers the dispatch does cover (none for a shard).
const LoadedModule& dispatch_module(Runtime& runtime, const CudaProgram& program, const LaunchGeometry& geometry,
                                    const std::vector<std::uint64_t>& buffer_elements, bool sharded) {
  const auto covered = [&](std::uint32_t b) { return covers(b, geometry, buffer_elements); };
  const auto& assumed = program.covering();
  if (!sharded && std::ranges::all_of(assumed, covered) && geometry.workgroup == program.program().workgroup_size)
    return program.module();
  std::vector<std::uint32_t> covering;
  if (!sharded) std::ranges::copy_if(assumed, std::back_inserter(covering), covered);
  return program.module_for(runtime.modules(), geometry.workgroup, sharded, covering);
}

}  // namespace

const CudaProgram& cuda_program(const kit::CompiledProgram& program) {
  const auto* cuda = dynamic_cast<const CudaProgram*>(&program);
  if (cuda == nullptr) {
    fail(VYRE_ERR_INVALID_HANDLE, "The program was not compiled by the cuda backend",
         "compile the program with the backend instance that dispatches it");
  }
  return *cuda;
}

ExecPlan plan_execution(Runtime& runtime, const CudaProgram& program, const LaunchGeometry& geometry,
                        const std::vector<std::uint64_t>& buffer_elements, const std::optional<ShardRange>& shard) {
  ExecPlan plan;
  plan.geometry = geometry;
  plan.shard = shard;
  if (geometry.empty() || (shard && (shard->empty() || planned_invocations(plan).size() == 0))) return plan;
  check_dispatch_size(geometry);
  plan.grid = geometry.grid;
  if (shard) plan.grid[0] = shard->count;
  // The device's limits first, so that a workgroup it cannot launch never lowers a module variant
  // (every variant has the same shared memory); then the module specialised to this launch's
  // workgroup size (workgroup_override included: its entries require it with .reqntid) and to the
  // buffers that cover it.
  const KernelFunction& declared = program.module().whole;
  check_geometry(runtime.device(), declared.entry.name, plan.grid, geometry.workgroup, declared.static_shared_bytes, 0);
  const LoadedModule& module = dispatch_module(runtime, program, geometry, buffer_elements, shard.has_value());
  check_kernel(runtime, module.whole, plan);
  const KernelFunction* elementwise = runtime.elementwise_entries() ? elementwise_kernel(module, geometry) : nullptr;
  if (elementwise != nullptr) {
    plan.kernels = {elementwise};
    plan.grid = elementwise_grid(geometry, planned_invocations(plan).size(),
                                 elementwise->entry.invocations_per_thread);
    return plan;
  }
  if (!program.grid_sync()) {
    plan.kernels = {&module.whole};
    return plan;
  }
  return plan_grid_sync(runtime, module, std::move(plan));
}

LaunchBindings make_bindings(const ExecPlan& plan, std::vector<drv::CUdeviceptr> pointers,
                             std::vector<std::uint64_t> elements) {
  LaunchBindings bindings;
  bindings.pointers = std::move(pointers);
  bindings.elements = std::move(elements);
  bindings.n = plan.geometry.n;
  bindings.tail_guard = plan.geometry.tail_guard;
  if (!plan.shard) return bindings;
  if (bindings.tail_guard) bindings.n = planned_invocations(plan).end;
  bindings.workgroup_base = plan.shard->first;
  bindings.grid_x = plan.geometry.grid[0];
  return bindings;
}

void enqueue_execution(Runtime& runtime, const ExecPlan& plan, const LaunchBindings& bindings,
                       drv::CUstream stream, drv::CUdeviceptr barrier, bool capturing,
                       RepeatLaunches* repeats, const StopCondition* stop) {
  if (plan.kernels.empty()) return;
  const Driver& driver = runtime.driver();
  // Only a cooperative launch binds the barrier (a copy of the bindings: rare, and not per launch).
  LaunchBindings cooperative_bindings;
  if (plan.cooperative) {
    cooperative_bindings = bindings;
    cooperative_bindings.grid_barrier = barrier;
  }
  const LaunchBindings& bound = plan.cooperative ? cooperative_bindings : bindings;
  for (std::uint32_t round = 0; round < plan.geometry.fixpoint_iterations; ++round) {
    for (const KernelFunction* kernel : plan.kernels) {
      if (stop != nullptr) stop->check();
      KernelArgs args(kernel->entry, bound);
      LaunchRequest request;
      request.kernel = kernel->entry.name;
      request.function = kernel->function;
      request.stream = stream;
      request.args = args.slots();
      request.arg_count = args.size();
      request.grid = plan.grid;
      request.block = plan.geometry.workgroup;
      request.shared_bytes = kernel->static_shared_bytes;
      request.function_max_threads = kernel->max_threads_per_block;
      request.cooperative = plan.cooperative;
      request.resident_capacity = plan.resident_capacity;
      validate_launch(runtime.device(), request);
      const auto& g = request.grid;
      const auto& b = request.block;
      drv::CUresult result = drv::CUDA_SUCCESS;
      const char* call = plan.cooperative ? "cuLaunchCooperativeKernel" : "cuLaunchKernel";
      if (plan.cooperative) {
        driver.check(driver.cuMemsetD8Async(barrier, 0, plan.grid_barrier_bytes, stream),
                     "cuMemsetD8Async(grid barrier)");
        Telemetry::add(runtime.telemetry().memset_operations);
        result = driver.cuLaunchCooperativeKernel(kernel->function, g[0], g[1], g[2], b[0], b[1], b[2], 0,
                                                  stream, args.slots());
        Telemetry::add(runtime.telemetry().cooperative_launches);
      } else if (repeats != nullptr && !capturing) {
        result = repeats->launch(kernel->function, g, b, args, stream, &call);
      } else {
        result = driver.cuLaunchKernel(kernel->function, g[0], g[1], g[2], b[0], b[1], b[2], 0, stream,
                                       args.slots(), nullptr);
      }
      if (result != drv::CUDA_SUCCESS) {
        fail(status_for(result),
             fmt::format("{} of `{}` failed: {} (grid {}, workgroup {}, N {}, {})", call, kernel->entry.name, driver.describe(result), g, b, plan.geometry.n,
                         runtime.target().name()),
             "check the launch geometry against the device limits (vyre backends shows them) and "
             "report the program if it is within them");
      }
      if (capturing) continue;
      Telemetry::add(runtime.telemetry().kernel_launches);
      if (kernel->entry.invocations_per_thread > 1) Telemetry::add(runtime.telemetry().elementwise_launches);
    }
  }
}

std::vector<GraphNodeSpec> graph_nodes(const ExecPlan& plan, const LaunchBindings& bindings) {
  if (plan.cooperative) {
    fail(VYRE_ERR_INTERNAL, "A cooperative launch was about to be put in a CUDA graph",
         "this is a bug in the vyre CUDA runtime: cooperative plans run as direct launches");
  }
  std::vector<GraphNodeSpec> nodes;
  nodes.reserve(plan.launches());
  for (std::uint32_t round = 0; round < plan.geometry.fixpoint_iterations; ++round) {
    for (const KernelFunction* kernel : plan.kernels) {
      nodes.push_back(GraphNodeSpec{kernel->function, plan.grid, plan.geometry.workgroup,
                                    KernelArgs(kernel->entry, bindings)});
    }
  }
  return nodes;
}

}  // namespace vyre::cuda

