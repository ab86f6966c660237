#include "runtime/cuda_backend.hpp"

#include <fmt/format.h>

#include "vyre/error.hpp"

#include "runtime/cuda_program.hpp"
#include "runtime/device_work.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/host_run.hpp"
#include "runtime/cuda_pipeline.hpp"
#include "runtime/cuda_resident.hpp"
#include "runtime/resident_run.hpp"
#include "runtime/resident_transfer.hpp"
#include "runtime/sequence.hpp"

namespace vyre::cuda {

CudaBackend::~CudaBackend() { runtime_->bind_quietly(); }

void CudaBackend::device_profile(vyre_device_profile& out) {
  fill_profile(runtime_->device(), runtime_->target().name(), out);
}

std::shared_ptr<kit::CompiledProgram> CudaBackend::compile(Program program, std::string fingerprint) {
  runtime_->bind();
  // Every global buffer offered as covering; the module keeps those its proofs use.
  auto module = runtime_->modules().get(
      program, fingerprint, LowerOptions{.workgroup = program.workgroup_size, .covering = global_buffers(program)});
  return std::make_shared<CudaProgram>(std::move(program), std::move(fingerprint), std::move(module));
}

void CudaBackend::dispatch(const kit::HostDispatch& dispatch) {
  HostRun::start(runtime_, dispatch, false)->wait_on_queuing_thread();
}

std::unique_ptr<kit::Pending> CudaBackend::dispatch_async(const kit::HostDispatch& dispatch) {
  return std::make_unique<CudaPending>(HostRun::start(runtime_, dispatch, false));
}

vyre::Timing CudaBackend::dispatch_timed(const kit::HostDispatch& dispatch) {
  auto run = HostRun::start(runtime_, dispatch, true);
  run->wait_on_queuing_thread();
  const vyre::Timing timing = run->timing();
  record_timing(timing);
  return timing;
}

std::shared_ptr<kit::DeviceBuffer> CudaBackend::resident_alloc(std::uint64_t byte_len) {
  return std::make_shared<CudaResident>(runtime_, byte_len);
}

void CudaBackend::resident_free(kit::DeviceBuffer& buffer) { cuda_resident(buffer).release(); }

std::shared_ptr<kit::DeviceBuffer> CudaBackend::resident_import(const kit::ImportRequest& memory) {
  if (memory.kind != VYRE_MEMORY_DEVICE)
    fail(VYRE_ERR_UNSUPPORTED, "the cuda backend imports device memory only (VYRE_MEMORY_DEVICE), not memory kind " + std::to_string(memory.kind),
         "pass a CUdeviceptr with kind VYRE_MEMORY_DEVICE, or upload host memory into a buffer from resident_alloc");
  check_external_memory(*runtime_, memory.address, memory.byte_len);
  return std::make_shared<CudaResident>(runtime_, memory.address, memory.byte_len);
}

kit::MemoryLocation CudaBackend::resident_export(kit::DeviceBuffer& buffer) {
  CudaResident& resident = cuda_resident(buffer);
  runtime_->bind();
  resident.synchronize();  // the consumer may use the memory on any stream
  return kit::MemoryLocation{VYRE_MEMORY_DEVICE, VYRE_DLPACK_CUDA, runtime_->device().ordinal, resident.pointer()};
}

void CudaBackend::resident_upload(std::span<const kit::CheckedWrite> writes) {
  upload_resident(*runtime_, writes);
}

void CudaBackend::resident_download(std::span<const kit::CheckedRead> reads) {
  download_resident(*runtime_, reads);
}

std::unique_ptr<kit::Pending> CudaBackend::dispatch_resident(const kit::ResidentDispatch& dispatch, bool wait) {
  auto run = ResidentRun::start(runtime_, dispatch, false);
  if (!wait) return std::make_unique<CudaPending>(std::move(run));
  run->wait_on_queuing_thread();
  return nullptr;
}

vyre::Timing CudaBackend::dispatch_resident_timed(const kit::ResidentDispatch& dispatch) {
  auto run = ResidentRun::start(runtime_, dispatch, true);
  run->wait_on_queuing_thread();
  const vyre::Timing timing = run->timing();
  record_timing(timing);
  return timing;
}

namespace {

// Sequences and pipelines replay captured graphs, which cannot stop part-way: they refuse a time
// limit rather than ignore it (docs/RELIABILITY.md, "Bounded dispatch").
void refuse_time_limit(const DispatchConfig& config, const char* what) {
  if (!config.time_limit_ns) return;
  fail(VYRE_ERR_UNSUPPORTED,
       fmt::format("the CUDA backend cannot stop {} at a deadline (it replays captured graphs)", what),
       "set the time limit on plain host or resident dispatches, or run without VYRE_CONFIG_HAS_TIME_LIMIT");
}

}  // namespace

void CudaBackend::sequence_run(const kit::CheckedSequence& sequence) {
  for (const auto* steps : {&sequence.prefix, &sequence.repeated})
    for (const kit::ResidentDispatch& step : *steps) refuse_time_limit(step.config, "a sequence");
  run_sequence(*runtime_, sequence);
}

std::shared_ptr<kit::CompiledPipeline> CudaBackend::pipeline_create(std::shared_ptr<const kit::CompiledProgram> program,
                                                            const DispatchConfig& config, std::uint32_t flags) {
  refuse_time_limit(config, "a pipeline");
  cuda_program(*program);
  return std::make_shared<CudaPipeline>(runtime_, std::move(program), config, flags);
}

void CudaBackend::pipeline_dispatch(kit::CompiledPipeline& pipeline, const kit::HostDispatch& dispatch) {
  auto* cuda = dynamic_cast<CudaPipeline*>(&pipeline);
  if (cuda == nullptr) {
    fail(VYRE_ERR_INVALID_HANDLE, "The pipeline was not created by the cuda backend",
         "create pipelines with the instance that dispatches them");
  }
  cuda->dispatch(dispatch);
}

std::vector<kit::Counter> CudaBackend::metrics() {
  std::vector<kit::Counter> metrics = runtime_->telemetry().snapshot();
  // Device memory as the driver sees it now (other processes included); left out when the driver
  // cannot say (e.g. after a device fault), so that counters stay readable.
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  if (runtime_->bind_quietly() &&
      runtime_->driver().cuMemGetInfo(&free_bytes, &total_bytes) == drv::CUDA_SUCCESS) {
    metrics.push_back(kit::Counter{"device_memory_free_bytes", free_bytes});
    metrics.push_back(kit::Counter{"device_memory_total_bytes", total_bytes});
  }
  for (const kit::Counter& metric : fault::metrics()) metrics.push_back(metric);  // test builds only
  return metrics;
}

void CudaBackend::metrics_reset() { runtime_->telemetry().reset(); }

void CudaBackend::record_timing(const vyre::Timing& timing) {
  Telemetry& telemetry = runtime_->telemetry();
  Telemetry::add(telemetry.timed_dispatches);
  Telemetry::add(telemetry.timed_wall_ns, timing.wall_ns);
  Telemetry::add(telemetry.timed_device_ns, timing.device_ns);
  Telemetry::add(telemetry.timed_enqueue_ns, timing.enqueue_ns);
  Telemetry::add(telemetry.timed_wait_ns, timing.wait_ns);
}

}  // namespace vyre::cuda
