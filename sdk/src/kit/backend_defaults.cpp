// The default implementations of vyre::kit::Backend.
#include <chrono>
#include <string>

#include "vyre/plugin_kit.hpp"

namespace vyre::kit {

namespace {

[[noreturn]] void unsupported(std::string_view call) {
  fail(VYRE_ERR_UNSUPPORTED, "this backend does not implement " + std::string(call),
       "check the backend's capability flags (vyre backends) and use a backend that has it");
}

std::uint64_t elapsed_ns(std::chrono::steady_clock::time_point start) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count());
}

}  // namespace

std::unique_ptr<Pending> Backend::dispatch_async(const HostDispatch& dispatch) {
  try {
    this->dispatch(dispatch);
  } catch (const Error& e) {
    return std::make_unique<CompletedPending>(e);
  }
  return std::make_unique<CompletedPending>();
}

Timing Backend::dispatch_timed(const HostDispatch& dispatch) {
  const auto start = std::chrono::steady_clock::now();
  this->dispatch(dispatch);
  Timing timing;
  timing.wall_ns = elapsed_ns(start);
  timing.enqueue_ns = timing.wall_ns;
  return timing;
}

std::shared_ptr<ResidentBuffer> Backend::resident_alloc(std::uint64_t) {
  unsupported("resident buffers (resident_alloc)");
}

void Backend::resident_free(ResidentBuffer&) {}

void Backend::resident_upload(std::span<const ResidentWrite>) {
  unsupported("resident buffers (resident_upload)");
}

void Backend::resident_download(std::span<const ResidentRead>) {
  unsupported("resident buffers (resident_download)");
}

std::unique_ptr<Pending> Backend::dispatch_resident(const ResidentDispatch&, bool) {
  unsupported("resident dispatch");
}

Timing Backend::dispatch_resident_timed(const ResidentDispatch& dispatch) {
  const auto start = std::chrono::steady_clock::now();
  dispatch_resident(dispatch, true);
  Timing timing;
  timing.wall_ns = elapsed_ns(start);
  timing.enqueue_ns = timing.wall_ns;
  return timing;
}

void Backend::sequence_run(const Sequence& sequence) {
  for (const ResidentDispatch& step : sequence.prefix) dispatch_resident(step, true);
  for (std::uint64_t r = 0; r < sequence.repeat_count; ++r)
    for (const ResidentDispatch& step : sequence.repeated) dispatch_resident(step, true);
  if (!sequence.reads.empty()) resident_download(sequence.reads);
}

std::shared_ptr<Pipeline> Backend::pipeline_create(std::shared_ptr<const CompiledProgram> program,
                                                   const DispatchConfig& config,
                                                   std::uint32_t flags) {
  return std::make_shared<Pipeline>(std::move(program), config, flags);
}

void Backend::pipeline_dispatch(Pipeline&, const HostDispatch& dispatch) { this->dispatch(dispatch); }

std::vector<Metric> Backend::metrics() { return {}; }

void Backend::metrics_reset() {}

}  // namespace vyre::kit
