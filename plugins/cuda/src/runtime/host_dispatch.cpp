#include "runtime/host_dispatch.hpp"

#include <cstring>

#include "runtime/byte_ranges.hpp"

namespace vyre::cuda {
namespace {

constexpr std::uint64_t kAlignment = 256;

std::uint64_t buffer_bytes(const BufferDecl& decl, std::uint64_t elements) {
  if (decl.access == Access::Workgroup) return 0;
  return elements * byte_size(decl.element);
}

}  // namespace

HostRun::HostRun(std::shared_ptr<Runtime> runtime, const kit::HostDispatch& dispatch)
    : DeviceWork(std::move(runtime), "host dispatch"),
      program_(dispatch.program),
      started_(std::chrono::steady_clock::now()) {}

std::unique_ptr<HostRun> HostRun::start(std::shared_ptr<Runtime> runtime, const kit::HostDispatch& dispatch,
                                        bool timed) {
  const auto started = std::chrono::steady_clock::now();
  runtime->bind();
  const CudaProgram& program = cuda_program(*dispatch.program);
  const ExecPlan plan = plan_execution(*runtime, program, dispatch.geometry);  // every check
  std::unique_ptr<HostRun> run(new HostRun(std::move(runtime), dispatch));
  run->started_ = started;
  run->queue(dispatch, plan, timed);
  run->enqueue_ns_ = elapsed_ns(started);
  return run;
}

void HostRun::queue(const kit::HostDispatch& dispatch, const ExecPlan& plan, bool timed) {
  Runtime& rt = runtime();
  const Driver& driver = rt.driver();
  Telemetry& telemetry = rt.telemetry();
  const Program& program = dispatch.program->program();
  const auto& inputs = dispatch.program->input_buffers();
  const auto& outputs = dispatch.program->output_buffers();

  // Device layout: every non-workgroup buffer, then the grid barrier.
  std::vector<std::uint64_t> device_sizes;
  for (std::size_t i = 0; i < program.buffers.size(); ++i) {
    device_sizes.push_back(buffer_bytes(program.buffers[i], dispatch.buffer_elements[i]));
  }
  device_sizes.push_back(plan.grid_barrier_bytes);
  std::uint64_t device_total = 0;
  const auto device_offsets = pack_offsets(device_sizes, kAlignment, &device_total);

  // Staging layout: the inputs, then the outputs' byte ranges.
  std::vector<std::uint64_t> staging_sizes;
  for (const kit::Bytes& input : dispatch.inputs) staging_sizes.push_back(input.size());
  for (const kit::OutputTarget& output : dispatch.outputs) staging_sizes.push_back(output.dst.size());
  std::uint64_t staging_total = 0;
  const auto staging_offsets = pack_offsets(staging_sizes, kAlignment, &staging_total);

  device_ = rt.device_memory().acquire(device_total);
  staging_ = rt.staging().acquire(staging_total);
  const drv::CUdeviceptr base = device_.address();
  std::vector<drv::CUdeviceptr> pointers;
  for (std::size_t i = 0; i < program.buffers.size(); ++i) {
    pointers.push_back(program.buffers[i].access == Access::Workgroup ? 0 : base + device_offsets[i]);
  }
  const drv::CUstream s = stream();

  if (timed) {
    timing_start_ = rt.events().acquire(true);
    timing_end_ = rt.events().acquire(true);
    driver.check(driver.cuEventRecord(timing_start_->get(), s), "cuEventRecord(start)");
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const kit::Bytes& input = dispatch.inputs[i];
    if (input.empty()) continue;
    std::byte* staged = staging_.host() + staging_offsets[i];
    std::memcpy(staged, input.data(), input.size());
    driver.check(driver.cuMemcpyHtoDAsync(pointers[inputs[i]], staged, input.size(), s), "cuMemcpyHtoDAsync");
    Telemetry::add(telemetry.h2d_operations);
    Telemetry::add(telemetry.h2d_bytes, input.size());
  }
  for (std::size_t b = 0; b < program.buffers.size(); ++b) {
    if (program.buffers[b].access != Access::Output || device_sizes[b] == 0) continue;
    driver.check(driver.cuMemsetD8Async(pointers[b], 0, device_sizes[b], s), "cuMemsetD8Async(output)");
    Telemetry::add(telemetry.memset_operations);
  }
  const drv::CUdeviceptr barrier = base + device_offsets.back();
  enqueue_execution(rt, plan, make_bindings(plan, pointers, dispatch.buffer_elements), s, barrier);
  for (std::size_t j = 0; j < outputs.size(); ++j) {
    const kit::OutputTarget& output = dispatch.outputs[j];
    const std::uint64_t offset = staging_offsets[inputs.size() + j];
    outputs_.push_back(OutputCopy{output.dst, offset});
    if (output.dst.empty()) continue;
    driver.check(driver.cuMemcpyDtoHAsync(staging_.host() + offset, pointers[outputs[j]] + output.buffer_offset,
                                          output.dst.size(), s),
                 "cuMemcpyDtoHAsync");
    Telemetry::add(telemetry.d2h_operations);
    Telemetry::add(telemetry.d2h_bytes, output.dst.size());
  }
  if (timed) driver.check(driver.cuEventRecord(timing_end_->get(), s), "cuEventRecord(end)");
  Telemetry::add(telemetry.dispatches);
  seal();
}

void HostRun::on_success() {
  for (const OutputCopy& output : outputs_) {
    if (output.dst.empty()) continue;
    std::memcpy(output.dst.data(), staging_.host() + output.staging_offset, output.dst.size());
  }
  staging_.release();
  device_.release();
}

kit::Timing HostRun::timing() const {
  kit::Timing timing;
  timing.wall_ns = elapsed_ns(started_);
  timing.enqueue_ns = enqueue_ns_;
  timing.wait_ns = wait_ns();
  if (timing_start_ && timing_end_) {
    float ms = 0.0f;
    const Driver& driver = runtime_->driver();
    if (driver.cuEventElapsedTime(&ms, timing_start_->get(), timing_end_->get()) == drv::CUDA_SUCCESS) {
      timing.device_ns = static_cast<std::uint64_t>(static_cast<double>(ms) * 1e6);
      timing.has_device_ns = true;
    }
  }
  return timing;
}

}  // namespace vyre::cuda
