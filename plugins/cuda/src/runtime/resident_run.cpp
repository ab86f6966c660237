#include "runtime/resident_run.hpp"

#include <cstring>

#include "runtime/byte_ranges.hpp"
#include "runtime/native_stream_extension.hpp"

namespace vyre::cuda {
namespace {

constexpr std::uint64_t kAlignment = 256;

// Every non-workgroup buffer is bound to a resident buffer (nothing to stage).
bool all_resident(const kit::ResidentDispatch& dispatch) {
  const Program& program = dispatch.program->program();
  for (std::size_t i = 0; i < dispatch.bindings.size() && i < program.buffers.size(); ++i) {
    if (program.buffers[i].access != Access::Workgroup && !dispatch.bindings[i].resident) return false;
  }
  return true;
}

// The CudaResident bound to each buffer (null where none is), one checked cast per binding.
std::vector<CudaResident*> bound_residents(const kit::ResidentDispatch& dispatch) {
  std::vector<CudaResident*> bound(dispatch.bindings.size(), nullptr);
  for (std::size_t i = 0; i < dispatch.bindings.size(); ++i) {
    if (dispatch.bindings[i].resident) bound[i] = &cuda_resident(*dispatch.bindings[i].resident);
  }
  return bound;
}

std::vector<drv::CUdeviceptr> resident_pointers(const Program& program, const std::vector<CudaResident*>& bound) {
  std::vector<drv::CUdeviceptr> pointers(program.buffers.size(), 0);
  for (std::size_t i = 0; i < bound.size() && i < program.buffers.size(); ++i) {
    if (bound[i] != nullptr) pointers[i] = bound[i]->pointer();
  }
  return pointers;
}

}  // namespace

std::vector<drv::CUdeviceptr> bind_resident(Runtime& runtime, const kit::ResidentDispatch& dispatch,
                                            bool allow_host, Block& staging, Block& device,
                                            drv::CUstream stream) {
  const Program& program = dispatch.program->program();
  if (all_resident(dispatch)) return resident_pointers(program, bound_residents(dispatch));
  std::vector<std::uint64_t> host_sizes;
  for (std::size_t i = 0; i < dispatch.bindings.size(); ++i) {
    const kit::CheckedBinding& binding = dispatch.bindings[i];
    host_sizes.push_back(binding.resident ? 0 : binding.host.size());
    if (!binding.resident && program.buffers[i].access != Access::Workgroup && !allow_host) {
      fail(VYRE_ERR_INVALID_ARGUMENT,
           "Sequence step binds host bytes to buffer `" + program.buffers[i].name + "`",
           "bind every buffer of a sequence step to a resident buffer (upload the bytes first)");
    }
  }
  std::uint64_t total = 0;
  const auto offsets = pack_offsets(host_sizes, kAlignment, &total);
  staging = runtime.staging().acquire(total);
  device = runtime.device_memory().acquire(total);
  std::vector<drv::CUdeviceptr> pointers(program.buffers.size(), 0);
  const Driver& driver = runtime.driver();
  for (std::size_t i = 0; i < dispatch.bindings.size() && i < program.buffers.size(); ++i) {
    const kit::CheckedBinding& binding = dispatch.bindings[i];
    if (program.buffers[i].access == Access::Workgroup) continue;
    if (binding.resident) {
      pointers[i] = cuda_resident(*binding.resident).pointer();
      continue;
    }
    pointers[i] = device.address() + offsets[i];
    if (binding.host.empty()) continue;
    std::memcpy(staging.host() + offsets[i], binding.host.data(), binding.host.size());
    driver.check(driver.cuMemcpyHtoDAsync(pointers[i], staging.host() + offsets[i], binding.host.size(), stream),
                 "cuMemcpyHtoDAsync(host binding)");
    Telemetry::add(runtime.telemetry().h2d_operations);
    Telemetry::add(runtime.telemetry().h2d_bytes, binding.host.size());
  }
  return pointers;
}

ResidentRun::ResidentRun(std::shared_ptr<Runtime> runtime, const kit::ResidentDispatch& dispatch,
                         StreamLease stream)
    : DeviceWork(std::move(runtime), "resident dispatch", std::move(stream)), program_(dispatch.program) {}

std::unique_ptr<ResidentRun> ResidentRun::start(std::shared_ptr<Runtime> runtime,
                                                const kit::ResidentDispatch& dispatch, bool timed) {
  // The clock is read only for timed dispatches and time-limited ones.
  const bool clocked = timed || dispatch.config.time_limit_ns.has_value();
  const auto started = clocked ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  runtime->bind();
  if (dispatch.after_native_stream) refuse_capturing_stream(*runtime, *dispatch.after_native_stream);
  const ExecPlan plan =
      plan_execution(*runtime, cuda_program(*dispatch.program), dispatch.geometry, dispatch.buffer_elements,
                     dispatch.shard);
  const std::vector<CudaResident*> bound = bound_residents(dispatch);  // foreign handles fail here
  // Queue on the stream that already orders the bound buffers' last operations, when there is
  // one: then no cross-stream wait is needed (a chain of dispatches stays on one stream).
  StreamLease stream = runtime->streams().acquire(common_last_stream(*runtime, bound));
  std::unique_ptr<ResidentRun> run(new ResidentRun(std::move(runtime), dispatch, std::move(stream)));
  run->timer_.set_started(started);
  run->queue(dispatch, plan, timed, bound, StopCondition(dispatch.config, started, nullptr));
  if (timed) run->timer_.mark_queued();
  return run;
}

void ResidentRun::queue(const kit::ResidentDispatch& dispatch, const ExecPlan& plan, bool timed,
                        const std::vector<CudaResident*>& bound, const StopCondition& stop) {
  Runtime& rt = runtime();
  const drv::CUstream s = stream();
  in_flight_.reserve(dispatch.bindings.size());
  for (const kit::CheckedBinding& binding : dispatch.bindings) in_flight_.add(binding.resident);
  // First, so that a refused stream leaves nothing queued.
  if (dispatch.after_native_stream) wait_for_native_stream(rt, s, *dispatch.after_native_stream);

  // Blocks that queued work uses live in blocks_ from the start, so a failure part-way keeps them
  // until the stream has drained (DeviceWork). Resident bindings without a grid barrier need none.
  drv::CUdeviceptr barrier = 0;
  if (plan.grid_barrier_bytes > 0) {
    blocks_.push_back(rt.device_memory().acquire(plan.grid_barrier_bytes));
    barrier = blocks_.back().address();
  }
  ResidentOrder order(rt, s, in_flight_.buffers().size());
  for (CudaResident* buffer : bound) {
    if (buffer != nullptr) order.use(*buffer);  // each distinct buffer once
  }
  if (timed) timer_.record_start(rt, s);
  std::vector<drv::CUdeviceptr> pointers;
  if (all_resident(dispatch)) {
    pointers = resident_pointers(dispatch.program->program(), bound);
  } else {
    blocks_.resize(blocks_.size() + 2);  // staging, then device memory for the host bindings
    pointers = bind_resident(rt, dispatch, true, blocks_[blocks_.size() - 2], blocks_.back(), s);
  }
  // Repeated identical dispatches replay a one-node graph (repeat_launch.hpp).
  enqueue_execution(rt, plan, make_bindings(plan, std::move(pointers), dispatch.buffer_elements), s, barrier,
                    false, &rt.repeat_launches(), stop.active() ? &stop : nullptr);
  timer_.record_end(rt, s);
  Telemetry::add(rt.telemetry().dispatches);
  if (plan.shard) Telemetry::add(rt.telemetry().shard_dispatches);
  seal();
  order.commit(fence_);
}

void ResidentRun::on_success() { timer_.read_device_time(runtime(), what_); }

void ResidentRun::on_finish() { in_flight_.clear(); }

vyre::Timing ResidentRun::timing() const { return timer_.timing(wait_ns()); }

}  // namespace vyre::cuda
