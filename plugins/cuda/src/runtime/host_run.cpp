#include "runtime/host_run.hpp"

#include <algorithm>
#include <cstring>

#include "runtime/byte_ranges.hpp"

namespace vyre::cuda {
namespace {

constexpr std::uint64_t kAlignment = 256;

}  // namespace

HostRun::HostRun(std::shared_ptr<Runtime> runtime, const kit::HostDispatch& dispatch)
    : DeviceWork(std::move(runtime), "host dispatch"), program_(dispatch.program) {}

std::unique_ptr<HostRun> HostRun::start(std::shared_ptr<Runtime> runtime, const kit::HostDispatch& dispatch,
                                        bool timed) {
  const auto started = std::chrono::steady_clock::now();
  runtime->bind();
  const CudaProgram& program = cuda_program(*dispatch.program);
  const ExecPlan plan = plan_execution(*runtime, program, dispatch.geometry, dispatch.buffer_elements);  // every check
  std::unique_ptr<HostRun> run(new HostRun(std::move(runtime), dispatch));
  run->timer_.set_started(started);
  run->queue(dispatch, plan, timed, StopCondition(dispatch.config, started, nullptr));
  run->timer_.mark_queued();
  return run;
}

void HostRun::queue(const kit::HostDispatch& dispatch, const ExecPlan& plan, bool timed, const StopCondition& stop) {
  Runtime& rt = runtime();
  const HostLayout layout = host_layout(dispatch, plan);

  const drv::CUstream s = stream();
  if (timed) timer_.record_start(rt, s);
  const HostStaging staging = choose_host_staging(rt, plan, layout);
  std::vector<drv::CUdeviceptr> pointers;
  switch (staging) {
    case HostStaging::Mapped: pointers = stage_mapped(dispatch, layout); break;
    case HostStaging::Image: pointers = stage_image(dispatch, layout); break;
    case HostStaging::Copies: pointers = stage_copies(dispatch, layout); break;
  }
  const drv::CUdeviceptr barrier = pointers.back();
  pointers.pop_back();
  enqueue_execution(rt, plan, make_bindings(plan, pointers, dispatch.buffer_elements), s, barrier, false,
                    &rt.repeat_launches(), stop.active() ? &stop : nullptr);
  pointers_ = std::move(pointers);
  read_back(dispatch, layout, staging);
  timer_.record_end(rt, s);
  Telemetry::add(rt.telemetry().dispatches);
  seal();
}

std::vector<drv::CUdeviceptr> HostRun::stage_mapped(const kit::HostDispatch& dispatch, const HostLayout& layout) {
  staging_ = runtime().staging().acquire(layout.total);
  build_image(dispatch, layout, staging_.host());
  Telemetry::add(runtime().telemetry().mapped_dispatches);
  // Unified addressing: the pinned block's device address is its host address.
  return layout_pointers(dispatch.program->program(), staging_.address(), layout);
}

std::vector<drv::CUdeviceptr> HostRun::stage_image(const kit::HostDispatch& dispatch, const HostLayout& layout) {
  Runtime& rt = runtime();
  const Driver& driver = rt.driver();
  staging_ = rt.staging().acquire(layout.total);
  device_ = rt.device_memory().acquire(layout.total);
  build_image(dispatch, layout, staging_.host());
  if (layout.total > 0) {
    driver.check(driver.cuMemcpyHtoDAsync(device_.address(), staging_.host(), layout.total, stream()),
                 "cuMemcpyHtoDAsync(image)");
    Telemetry::add(rt.telemetry().h2d_operations);
    Telemetry::add(rt.telemetry().h2d_bytes, layout.total);
  }
  return layout_pointers(dispatch.program->program(), device_.address(), layout);
}

std::vector<drv::CUdeviceptr> HostRun::stage_copies(const kit::HostDispatch& dispatch, const HostLayout& layout) {
  Runtime& rt = runtime();
  const Driver& driver = rt.driver();
  const Program& program = dispatch.program->program();
  const auto& inputs = dispatch.program->input_buffers();

  // Outputs the caller discards on failure come down through the ring after the fence, straight
  // into their memory; the others (dispatch_into) are staged whole, so no byte is written unless
  // every byte arrived.
  download_after_fence_ = dispatch.outputs_discarded_on_failure;
  std::uint64_t largest = 0;  // the largest single transfer sizes the ring
  for (const kit::Bytes& input : dispatch.inputs) largest = std::max<std::uint64_t>(largest, input.size());
  std::vector<std::uint64_t> output_sizes;
  for (const kit::OutputTarget& output : dispatch.outputs) {
    output_sizes.push_back(output.dst.size());
    if (download_after_fence_) largest = std::max<std::uint64_t>(largest, output.dst.size());
  }
  device_ = rt.device_memory().acquire(layout.total);
  ring_ = TransferRing(rt, largest);
  if (!download_after_fence_) {
    std::uint64_t staged = 0;
    output_offsets_ = pack_offsets(output_sizes, kAlignment, &staged);
    staging_ = rt.staging().acquire(staged);
  }
  std::vector<drv::CUdeviceptr> pointers = layout_pointers(program, device_.address(), layout);
  const drv::CUstream s = stream();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const kit::Bytes& input = dispatch.inputs[i];
    ring_.upload(rt, input.data(), pointers[inputs[i]], input.size(), s);
  }
  for (std::size_t b = 0; b < program.buffers.size(); ++b) {
    if (program.buffers[b].access != Access::Output || layout.sizes[b] == 0) continue;
    driver.check(driver.cuMemsetD8Async(pointers[b], 0, layout.sizes[b], s), "cuMemsetD8Async(output)");
    Telemetry::add(rt.telemetry().memset_operations);
  }
  return pointers;
}

void HostRun::read_back(const kit::HostDispatch& dispatch, const HostLayout& layout, HostStaging staging) {
  Runtime& rt = runtime();
  const Driver& driver = rt.driver();
  Telemetry& telemetry = rt.telemetry();
  const auto& outputs = dispatch.program->output_buffers();
  std::uint64_t span_begin = layout.total;
  std::uint64_t span_end = 0;
  for (std::size_t j = 0; j < outputs.size(); ++j) {
    const kit::OutputTarget& output = dispatch.outputs[j];
    const drv::CUdeviceptr device = pointers_[outputs[j]] + output.buffer_offset;
    if (staging == HostStaging::Copies && download_after_fence_) {  // on_success downloads it
      outputs_.push_back(OutputCopy{output.dst, 0, device});
      continue;
    }
    if (staging == HostStaging::Copies) {  // staged whole, copied out on success
      outputs_.push_back(OutputCopy{output.dst, output_offsets_[j], 0});
      if (output.dst.empty()) continue;
      driver.check(driver.cuMemcpyDtoHAsync(staging_.host() + output_offsets_[j], device, output.dst.size(), stream()),
                   "cuMemcpyDtoHAsync");
      Telemetry::add(telemetry.d2h_operations);
      Telemetry::add(telemetry.d2h_bytes, output.dst.size());
      continue;
    }
    const std::uint64_t in_layout = layout.offsets[outputs[j]] + output.buffer_offset;
    outputs_.push_back(OutputCopy{output.dst, in_layout, 0});  // the staging block mirrors the layout
    if (output.dst.empty()) continue;
    span_begin = std::min(span_begin, in_layout);
    span_end = std::max(span_end, in_layout + output.dst.size());
  }
  if (staging != HostStaging::Image || span_end <= span_begin) return;
  // One copy of the span covering every output range (the block's image is no longer needed).
  driver.check(driver.cuMemcpyDtoHAsync(staging_.host() + span_begin, device_.address() + span_begin,
                                        span_end - span_begin, stream()),
               "cuMemcpyDtoHAsync(outputs)");
  Telemetry::add(telemetry.d2h_operations);
  Telemetry::add(telemetry.d2h_bytes, span_end - span_begin);
}

void HostRun::on_success() {
  // The device time first: a failure to read it fails the dispatch before any output is written.
  timer_.read_device_time(runtime(), what_);
  if (download_after_fence_) {
    download_outputs();
  } else {
    for (const OutputCopy& output : outputs_) {
      if (output.dst.empty()) continue;
      std::memcpy(output.dst.data(), staging_.host() + output.staging_offset, output.dst.size());
    }
  }
  staging_.release();
  ring_.release();
  device_.release();
}

void HostRun::download_outputs() {
  Runtime& rt = runtime();
  const StreamLease lease = rt.streams().acquire();  // the queuing stream went back at seal()
  for (const OutputCopy& output : outputs_) {
    if (output.dst.empty()) continue;
    ring_.download(rt, output.device, output.dst.data(), output.dst.size(), lease.get());
  }
}

vyre::Timing HostRun::timing() const { return timer_.timing(wait_ns()); }

}  // namespace vyre::cuda
