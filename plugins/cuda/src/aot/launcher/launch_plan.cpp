#include "launch_plan.hpp"

#include "errors.hpp"

namespace vyre_launch {
namespace {

const char* const kAxis[3] = {"x", "y", "z"};

std::string dims_text(const Dims& d) { return cat("[", d[0], ", ", d[1], ", ", d[2], "]"); }

}  // namespace

void check_device_target(const Manifest& m, const cuda::DeviceLimits& device) {
  if (device.sm >= m.target_sm) return;
  fail(cat("the bundle targets ", m.target, " but device ", device.ordinal, " (", device.name, ") is sm_", device.sm),
       cat("rebuild the bundle for this device with vyre-aot --sm ", device.sm,
           ", or run it on a device of compute capability ", m.target_sm / 10, ".", m.target_sm % 10, " or newer"));
}

bool cubin_runs_on(const Manifest& m, const cuda::DeviceLimits& device) {
  return m.cubin && device.sm / 10 == m.target_sm / 10 && device.sm >= m.target_sm;
}

void check_launch_limits(const Manifest& m, const Entry& entry, const cuda::DeviceLimits& device,
                         std::uint32_t function_max_threads) {
  const std::string where = cat("kernel ", entry.name, " on device ", device.ordinal, " (", device.name, ")");
  for (int axis = 0; axis < 3; ++axis) {
    if (m.workgroup[axis] > device.max_block[axis])
      fail(cat(where, ": workgroup ", dims_text(m.workgroup), " axis ", kAxis[axis], " is above the device limit ",
               device.max_block[axis]),
           "rebuild the bundle from a program with a smaller workgroup");
    if (m.grid[axis] > device.max_grid[axis])
      fail(cat(where, ": grid ", dims_text(m.grid), " axis ", kAxis[axis], " is above the device limit ",
               device.max_grid[axis]),
           "rebuild the bundle with vyre-aot --grid within the device limits");
  }
  const std::uint64_t threads = checked_product(m.workgroup, "workgroup");
  if (threads > device.max_threads_per_block)
    fail(cat(where, ": ", threads, " invocations per workgroup, above the device limit ", device.max_threads_per_block),
         "rebuild the bundle from a program with a smaller workgroup");
  if (function_max_threads != 0 && threads > function_max_threads)
    fail(cat(where, ": ", threads, " invocations per workgroup, but the compiled kernel allows ", function_max_threads),
         cat("rebuild the bundle from a program with at most ", function_max_threads, " invocations per workgroup"));
  if (entry.shared_bytes > device.max_shared_per_block)
    fail(cat(where, ": needs ", entry.shared_bytes, " bytes of workgroup memory, above the device limit ",
             device.max_shared_per_block),
         "declare smaller workgroup buffers and rebuild the bundle");
}

LaunchPlan plan_launch(const Manifest& m, const cuda::DeviceLimits& device, std::uint64_t resident_capacity,
                       bool force_split) {
  LaunchPlan plan;
  if (!m.entry.cooperative) {
    plan.kernels.push_back(&m.entry);
    return plan;
  }
  const std::uint64_t blocks = checked_product(m.grid, "grid");
  const bool fits = resident_capacity != 0 && blocks <= resident_capacity;
  if (device.cooperative_launch && fits && !force_split) {
    plan.kernels.push_back(&m.entry);
    plan.cooperative = true;
    return plan;
  }
  if (m.phases.empty())
    fail(
        cat("kernel ", m.entry.name, " needs all ", blocks, " workgroups of grid ", dims_text(m.grid),
            " co-resident, but device ", device.ordinal, " (", device.name, ") ",
            device.cooperative_launch ? cat("fits ", resident_capacity) : std::string("supports no cooperative launch"),
            force_split ? " (and a split was forced)" : ""),
        "rebuild the bundle with a smaller grid, or with its phase entries");
  for (const Entry& phase : m.phases) plan.kernels.push_back(&phase);
  return plan;
}

std::vector<std::uint64_t> kernel_argument_values(const Manifest& m, const Entry& entry,
                                                  const std::vector<cuda::CUdeviceptr>& pointers,
                                                  cuda::CUdeviceptr grid_barrier) {
  std::vector<std::uint64_t> values;
  for (const Param& p : entry.params) {
    switch (p.kind) {
      case ParamKind::BufferPointer:
        if (p.buffer >= pointers.size() || pointers[p.buffer] == 0)
          fail(cat("kernel ", entry.name, " parameter for buffer ", p.buffer, " has no device allocation"),
               "this is a launcher bug: report it with the bundle");
        values.push_back(pointers[p.buffer]);
        break;
      case ParamKind::ElementCount:
        values.push_back(m.buffers.at(p.buffer).count);
        break;
      case ParamKind::DispatchN:
        values.push_back(m.dispatch_elements);
        break;
      case ParamKind::TailGuard:
        values.push_back(m.tail_guard ? 1 : 0);
        break;
      case ParamKind::GridBarrier:
        if (grid_barrier == 0)
          fail(cat("cooperative kernel ", entry.name, " has no grid-barrier memory"),
               "this is a launcher bug: report it with the bundle");
        values.push_back(grid_barrier);
        break;
    }
  }
  return values;
}

}  // namespace vyre_launch
