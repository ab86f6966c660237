#include "runtime/pipeline.hpp"

#include <cstring>

#include "runtime/byte_ranges.hpp"
#include "runtime/captured_graph.hpp"
#include "runtime/execution.hpp"

namespace vyre::cuda {
namespace {

constexpr std::uint64_t kAlignment = 256;
constexpr std::size_t kMaxShapes = 8;

}  // namespace

// Everything one input shape of a pipeline needs, built once and replayed.
class PipelineShape {
 public:
  PipelineShape(std::shared_ptr<Runtime> runtime, const kit::HostDispatch& dispatch);
  ~PipelineShape();
  void run(const kit::HostDispatch& dispatch);

 private:
  // Queue the whole dispatch on stream_: once under capture, or at every dispatch (direct).
  void record(bool capturing);

  std::shared_ptr<Runtime> runtime_;
  std::mutex mutex_;  // one dispatch at a time per shape
  ExecPlan plan_;
  std::vector<std::size_t> inputs_;   // buffer index per host input
  std::vector<std::size_t> outputs_;  // buffer index per host output
  std::vector<std::uint64_t> input_bytes_;
  std::vector<std::uint64_t> output_offsets_;  // byte offset into the buffer, per host output
  std::vector<std::uint64_t> output_bytes_;
  std::vector<std::uint64_t> memset_bytes_;    // per buffer: bytes to zero (output buffers)
  std::vector<std::uint64_t> staging_offsets_;
  LaunchBindings bindings_;
  Block device_;
  Block staging_;
  drv::CUdeviceptr barrier_ = 0;
  StreamLease stream_;
  EventRef fence_;
  std::unique_ptr<CapturedGraph> graph_;
};

PipelineShape::PipelineShape(std::shared_ptr<Runtime> runtime, const kit::HostDispatch& dispatch)
    : runtime_(std::move(runtime)) {
  Runtime& rt = *runtime_;
  const Program& program = dispatch.program->program();
  plan_ = plan_execution(rt, cuda_program(*dispatch.program), dispatch.geometry);
  inputs_ = dispatch.program->input_buffers();
  outputs_ = dispatch.program->output_buffers();
  std::vector<std::uint64_t> device_sizes;
  for (std::size_t i = 0; i < program.buffers.size(); ++i) {
    const BufferDecl& decl = program.buffers[i];
    const std::uint64_t bytes = decl.access == Access::Workgroup ? 0 : dispatch.buffer_elements[i] * byte_size(decl.element);
    device_sizes.push_back(bytes);
    memset_bytes_.push_back(decl.access == Access::Output ? bytes : 0);
  }
  device_sizes.push_back(plan_.grid_barrier_bytes);
  std::uint64_t device_total = 0;
  const auto device_offsets = pack_offsets(device_sizes, kAlignment, &device_total);

  std::vector<std::uint64_t> staging_sizes;
  for (const kit::Bytes& input : dispatch.inputs) {
    input_bytes_.push_back(input.size());
    staging_sizes.push_back(input.size());
  }
  for (const kit::OutputTarget& output : dispatch.outputs) {
    output_offsets_.push_back(output.buffer_offset);
    output_bytes_.push_back(output.dst.size());
    staging_sizes.push_back(output.dst.size());
  }
  std::uint64_t staging_total = 0;
  staging_offsets_ = pack_offsets(staging_sizes, kAlignment, &staging_total);

  device_ = rt.device_memory().acquire(device_total);
  staging_ = rt.staging().acquire(staging_total);
  std::vector<drv::CUdeviceptr> pointers;
  for (std::size_t i = 0; i < program.buffers.size(); ++i) {
    pointers.push_back(program.buffers[i].access == Access::Workgroup ? 0 : device_.address() + device_offsets[i]);
  }
  barrier_ = device_.address() + device_offsets.back();
  bindings_ = make_bindings(plan_, std::move(pointers), dispatch.buffer_elements);
  stream_ = rt.streams().acquire_private();  // captured below: never a pooled stream (Event)
  fence_ = rt.events().acquire();
  if (plan_.cooperative) return;  // a graph would drop the cooperative launch
  try {
    graph_ = CapturedGraph::capture(rt.context(), rt.telemetry(), stream_.get(), [this] { record(true); });
  } catch (const Error& error) {
    kit::log(VYRE_LOG_WARN, std::string("cuda: pipeline graph capture failed, launching directly: ") + error.what());
    Telemetry::add(rt.telemetry().graph_fallbacks);
    graph_.reset();
  }
}

PipelineShape::~PipelineShape() {
  runtime_->bind_quietly();
  runtime_->driver().cuStreamSynchronize(stream_.get());
  graph_.reset();
}

void PipelineShape::record(bool capturing) {
  Runtime& rt = *runtime_;
  const Driver& driver = rt.driver();
  const drv::CUstream s = stream_.get();
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    if (input_bytes_[i] == 0) continue;
    driver.check(driver.cuMemcpyHtoDAsync(bindings_.pointers[inputs_[i]], staging_.host() + staging_offsets_[i],
                                          input_bytes_[i], s),
                 "cuMemcpyHtoDAsync(pipeline)");
  }
  for (std::size_t b = 0; b < memset_bytes_.size(); ++b) {
    if (memset_bytes_[b] == 0) continue;
    driver.check(driver.cuMemsetD8Async(bindings_.pointers[b], 0, memset_bytes_[b], s), "cuMemsetD8Async(pipeline)");
  }
  enqueue_execution(rt, plan_, bindings_, s, barrier_, capturing);
  for (std::size_t j = 0; j < outputs_.size(); ++j) {
    if (output_bytes_[j] == 0) continue;
    driver.check(driver.cuMemcpyDtoHAsync(staging_.host() + staging_offsets_[inputs_.size() + j],
                                          bindings_.pointers[outputs_[j]] + output_offsets_[j], output_bytes_[j], s),
                 "cuMemcpyDtoHAsync(pipeline)");
  }
}

void PipelineShape::run(const kit::HostDispatch& dispatch) {
  std::lock_guard lock(mutex_);
  Runtime& rt = *runtime_;
  const Driver& driver = rt.driver();
  Telemetry& telemetry = rt.telemetry();
  for (std::size_t i = 0; i < dispatch.inputs.size(); ++i) {
    if (!dispatch.inputs[i].empty()) {
      std::memcpy(staging_.host() + staging_offsets_[i], dispatch.inputs[i].data(), dispatch.inputs[i].size());
    }
  }
  if (graph_) {
    graph_->launch(stream_.get());
    Telemetry::add(telemetry.kernel_launches, plan_.launches());
  } else {
    record(false);
  }
  driver.check(driver.cuEventRecord(fence_->get(), stream_.get()), "cuEventRecord");
  const drv::CUresult done = driver.cuEventSynchronize(fence_->get());
  Telemetry::add(telemetry.sync_points);
  Telemetry::add(telemetry.dispatches);
  for (std::size_t i = 0; i < input_bytes_.size(); ++i) {
    if (input_bytes_[i] == 0) continue;
    Telemetry::add(telemetry.h2d_operations);
    Telemetry::add(telemetry.h2d_bytes, input_bytes_[i]);
  }
  for (std::uint64_t bytes : memset_bytes_) {
    if (bytes != 0) Telemetry::add(telemetry.memset_operations);
  }
  driver.check(done, "pipeline dispatch on the device",
               "dispatch the same inputs without the pipeline to compare; after a device fault the "
               "instance must be recreated");
  for (std::size_t j = 0; j < dispatch.outputs.size(); ++j) {
    const kit::OutputTarget& output = dispatch.outputs[j];
    if (output.dst.empty()) continue;
    std::memcpy(output.dst.data(), staging_.host() + staging_offsets_[inputs_.size() + j], output.dst.size());
    Telemetry::add(telemetry.d2h_operations);
    Telemetry::add(telemetry.d2h_bytes, output.dst.size());
  }
}

CudaPipeline::CudaPipeline(std::shared_ptr<Runtime> runtime, std::shared_ptr<const kit::CompiledProgram> program,
                           DispatchConfig config, std::uint32_t flags)
    : kit::Pipeline(std::move(program), std::move(config), flags), runtime_(std::move(runtime)) {}

CudaPipeline::~CudaPipeline() {
  runtime_->bind_quietly();
  shapes_.clear();
}

std::shared_ptr<PipelineShape> CudaPipeline::shape_for(const kit::HostDispatch& dispatch) {
  std::lock_guard lock(mutex_);
  auto found = shapes_.find(dispatch.buffer_elements);
  if (found != shapes_.end()) return found->second;
  if (shapes_.size() >= kMaxShapes) shapes_.erase(shapes_.begin());  // in-use shapes stay alive
  auto shape = std::make_shared<PipelineShape>(runtime_, dispatch);
  shapes_.emplace(dispatch.buffer_elements, shape);
  return shape;
}

void CudaPipeline::dispatch(const kit::HostDispatch& dispatch) {
  runtime_->bind();
  shape_for(dispatch)->run(dispatch);
}

}  // namespace vyre::cuda
