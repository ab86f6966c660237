#include "runtime/pipeline_shape.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "runtime/byte_ranges.hpp"
#include "runtime/host_run.hpp"

namespace vyre::cuda {
namespace {

constexpr std::uint64_t kAlignment = 256;

}  // namespace

PipelineShape::PipelineShape(std::shared_ptr<Runtime> runtime, const kit::HostDispatch& dispatch)
    : runtime_(std::move(runtime)) {
  Runtime& rt = *runtime_;
  plan_ = plan_execution(rt, cuda_program(*dispatch.program), dispatch.geometry, dispatch.buffer_elements);  // every check
  layout_ = host_layout(dispatch, plan_);
  staging_mode_ = choose_host_staging(rt, plan_, layout_);
  // Only the mapped staging's kernel graph was measured faster than a plain dispatch; image and
  // copies shapes are plain dispatches unless capture is asked for (bench/NOTES.md, change 7).
  plain_ = staging_mode_ != HostStaging::Mapped && !env_flag(std::getenv(kPipelineCaptureEnv));
  if (plain_) return;
  inputs_ = dispatch.program->input_buffers();
  outputs_ = dispatch.program->output_buffers();
  for (const kit::Bytes& input : dispatch.inputs) input_bytes_.push_back(input.size());
  for (const kit::OutputTarget& output : dispatch.outputs) {
    output_offsets_.push_back(output.buffer_offset);
    output_bytes_.push_back(output.dst.size());
  }
  allocate(dispatch);
  if (staging_mode_ == HostStaging::Mapped) own_stream_ = rt.streams().acquire_private();
  fence_ = rt.events().acquire();
  build_replay();
}

PipelineShape::~PipelineShape() {
  runtime_->drain(own_stream_.get());  // a dispatch waits for its work: only a failed one can leave any
}

// Memory, kernel bindings and where each output's bytes land in staging.
void PipelineShape::allocate(const kit::HostDispatch& dispatch) {
  Runtime& rt = *runtime_;
  const Program& program = dispatch.program->program();
  std::vector<drv::CUdeviceptr> pointers;
  if (staging_mode_ == HostStaging::Copies) {
    std::vector<std::uint64_t> sizes = input_bytes_;  // the inputs, then the outputs' byte ranges
    sizes.insert(sizes.end(), output_bytes_.begin(), output_bytes_.end());
    std::uint64_t total = 0;
    const auto offsets = pack_offsets(sizes, kAlignment, &total);
    copy_offsets_.assign(offsets.begin(), offsets.begin() + static_cast<std::ptrdiff_t>(inputs_.size()));
    staging_offsets_.assign(offsets.begin() + static_cast<std::ptrdiff_t>(inputs_.size()), offsets.end());
    device_ = rt.device_memory().acquire(layout_.total);
    staging_ = rt.staging().acquire(total);
    pointers = layout_pointers(program, device_.address(), layout_);
    for (std::size_t b = 0; b < program.buffers.size(); ++b) {
      if (program.buffers[b].access == Access::Output && layout_.sizes[b] != 0) zeroed_.push_back(b);
    }
  } else {
    // The staging block mirrors the layout; mapped: the kernel uses it directly (unified addressing:
    // its device address is its host address).
    staging_ = rt.staging().acquire(layout_.total);
    if (staging_mode_ == HostStaging::Image) device_ = rt.device_memory().acquire(layout_.total);
    const drv::CUdeviceptr base = staging_mode_ == HostStaging::Mapped ? staging_.address() : device_.address();
    pointers = layout_pointers(program, base, layout_);
    span_begin_ = layout_.total;
    for (std::size_t j = 0; j < outputs_.size(); ++j) {
      const std::uint64_t at = layout_.offsets[outputs_[j]] + output_offsets_[j];
      staging_offsets_.push_back(at);
      if (output_bytes_[j] == 0) continue;
      span_begin_ = std::min(span_begin_, at);
      span_end_ = std::max(span_end_, at + output_bytes_[j]);
    }
  }
  barrier_ = pointers.back();
  pointers.pop_back();
  bindings_ = make_bindings(plan_, std::move(pointers), dispatch.buffer_elements);
}

// A graph of the whole device work, built once; queued directly where no graph may or can be had.
void PipelineShape::build_replay() {
  Runtime& rt = *runtime_;
  if (plan_.cooperative || env_flag(std::getenv(kDisableGraphsEnv))) return;  // a graph would drop the cooperative launch
  try {
    if (staging_mode_ != HostStaging::Mapped) {
      const StreamLease capture = rt.streams().acquire_private();  // never a pooled stream (Event)
      captured_ = CapturedGraph::capture(rt.context(), rt.telemetry(), capture.get(),
                                         [this, &capture] { queue(capture.get(), true); });
    } else if (!plan_.kernels.empty()) {
      kernels_ = std::make_unique<KernelGraph>(rt.context(), rt.telemetry(), graph_nodes(plan_, bindings_));
    }
  } catch (const Error& error) {
    kit::log(VYRE_LOG_WARN, std::string("cuda: pipeline graph unavailable, queuing directly: ") + error.what());
    Telemetry::add(rt.telemetry().graph_fallbacks);
    captured_.reset();
    kernels_.reset();
  }
}

void PipelineShape::queue(drv::CUstream s, bool capturing) {
  Runtime& rt = *runtime_;
  const Driver& driver = rt.driver();
  if (staging_mode_ == HostStaging::Image && layout_.total > 0) {
    driver.check(driver.cuMemcpyHtoDAsync(device_.address(), staging_.host(), layout_.total, s),
                 "cuMemcpyHtoDAsync(pipeline image)");
  }
  if (staging_mode_ == HostStaging::Copies) {
    for (std::size_t i = 0; i < inputs_.size(); ++i) {
      if (input_bytes_[i] == 0) continue;
      driver.check(driver.cuMemcpyHtoDAsync(bindings_.pointers[inputs_[i]], staging_.host() + copy_offsets_[i],
                                            input_bytes_[i], s),
                   "cuMemcpyHtoDAsync(pipeline input)");
    }
    for (const std::size_t b : zeroed_) {
      driver.check(driver.cuMemsetD8Async(bindings_.pointers[b], 0, layout_.sizes[b], s), "cuMemsetD8Async(pipeline output)");
    }
  }
  // Direct launches go through the repeat graphs, as a plain dispatch's do (repeat_launch.hpp).
  enqueue_execution(rt, plan_, bindings_, s, barrier_, capturing, capturing ? nullptr : &rt.repeat_launches());
  if (staging_mode_ == HostStaging::Image && span_end_ > span_begin_) {
    driver.check(driver.cuMemcpyDtoHAsync(staging_.host() + span_begin_, device_.address() + span_begin_,
                                          span_end_ - span_begin_, s),
                 "cuMemcpyDtoHAsync(pipeline outputs)");
  }
  if (staging_mode_ == HostStaging::Copies) {
    for (std::size_t j = 0; j < outputs_.size(); ++j) {
      if (output_bytes_[j] == 0) continue;
      driver.check(driver.cuMemcpyDtoHAsync(staging_.host() + staging_offsets_[j],
                                            bindings_.pointers[outputs_[j]] + output_offsets_[j], output_bytes_[j], s),
                   "cuMemcpyDtoHAsync(pipeline output)");
    }
  }
}

void PipelineShape::stage_inputs(const kit::HostDispatch& dispatch) {
  if (staging_mode_ != HostStaging::Copies) {
    build_image(dispatch, layout_, staging_.host());  // inputs and zeroed outputs, as the layout
    return;
  }
  for (std::size_t i = 0; i < dispatch.inputs.size(); ++i) {
    const kit::Bytes& input = dispatch.inputs[i];
    if (!input.empty()) std::memcpy(staging_.host() + copy_offsets_[i], input.data(), input.size());
  }
}

StreamLease PipelineShape::dispatch_stream() {
  if (own_stream_.get() != nullptr) return StreamLease(nullptr, own_stream_.get());  // not owned
  return runtime_->streams().acquire();
}

void PipelineShape::replay(drv::CUstream s) {
  if (kernels_) {
    kernels_->launch(s);
  } else if (captured_) {
    captured_->launch(s);
  } else {
    queue(s, false);
  }
  if (kernels_ || captured_) {  // direct launches count themselves (enqueue_execution)
    Telemetry& telemetry = runtime_->telemetry();
    Telemetry::add(telemetry.kernel_launches, plan_.launches());
    if (plan_.elementwise()) Telemetry::add(telemetry.elementwise_launches, plan_.launches());
  }
}

// Record the fence and wait for it; on any failure the stream is drained before staging is reused.
void PipelineShape::wait(drv::CUstream s) {
  Runtime& rt = *runtime_;
  const Driver& driver = rt.driver();
  const drv::CUresult recorded = driver.cuEventRecord(fence_->get(), s);
  const drv::CUresult done = recorded == drv::CUDA_SUCCESS ? driver.cuEventSynchronize(fence_->get()) : recorded;
  Telemetry::add(rt.telemetry().sync_points);
  if (done == drv::CUDA_SUCCESS) return;
  rt.drain(s);
  driver.check(done, recorded != drv::CUDA_SUCCESS ? "cuEventRecord(pipeline fence)" : "cuEventSynchronize(pipeline dispatch)",
               "dispatch the same inputs without the pipeline to compare; after a sticky device error "
               "the instance must be recreated");
}

void PipelineShape::count_dispatch() {
  Telemetry& telemetry = runtime_->telemetry();
  Telemetry::add(telemetry.dispatches);
  switch (staging_mode_) {
    case HostStaging::Mapped:
      Telemetry::add(telemetry.mapped_dispatches);
      break;
    case HostStaging::Image:
      Telemetry::add(telemetry.h2d_operations);
      Telemetry::add(telemetry.h2d_bytes, layout_.total);
      if (span_end_ > span_begin_) {
        Telemetry::add(telemetry.d2h_operations);
        Telemetry::add(telemetry.d2h_bytes, span_end_ - span_begin_);
      }
      break;
    case HostStaging::Copies:
      for (const std::uint64_t bytes : input_bytes_) {
        if (bytes == 0) continue;
        Telemetry::add(telemetry.h2d_operations);
        Telemetry::add(telemetry.h2d_bytes, bytes);
      }
      Telemetry::add(telemetry.memset_operations, zeroed_.size());
      for (const std::uint64_t bytes : output_bytes_) {
        if (bytes == 0) continue;
        Telemetry::add(telemetry.d2h_operations);
        Telemetry::add(telemetry.d2h_bytes, bytes);
      }
      break;
  }
}

void PipelineShape::deliver(const kit::HostDispatch& dispatch) {
  for (std::size_t j = 0; j < dispatch.outputs.size(); ++j) {
    const kit::MutableBytes& dst = dispatch.outputs[j].dst;
    if (!dst.empty()) std::memcpy(dst.data(), staging_.host() + staging_offsets_[j], dst.size());
  }
}

void PipelineShape::run(const kit::HostDispatch& dispatch) {
  if (plain_) {
    HostRun::start(runtime_, dispatch, false)->wait_on_queuing_thread();
    return;
  }
  runtime_->bind();
  std::lock_guard lock(mutex_);
  stage_inputs(dispatch);
  const StreamLease stream = dispatch_stream();
  try {
    replay(stream.get());
  } catch (...) {
    runtime_->drain(stream.get());  // part of the work may be queued
    throw;
  }
  wait(stream.get());
  count_dispatch();
  deliver(dispatch);
}

}  // namespace vyre::cuda
