#include "runtime/sequence.hpp"

#include <cstdlib>
#include <cstring>
#include <map>

#include "runtime/byte_ranges.hpp"
#include "runtime/exec_plan.hpp"
#include "runtime/cuda_resident.hpp"
#include "runtime/resident_run.hpp"

namespace vyre::cuda {
namespace {

constexpr std::uint64_t kAlignment = 64;

struct PreparedStep {
  ExecPlan plan;
  LaunchBindings bindings;
  Block barrier;
};

struct PreparedRead {
  CudaResident* buffer = nullptr;
  RangePlan plan;
  std::vector<std::size_t> reads;              // indices into kit::CheckedSequence::reads
  std::vector<std::uint64_t> staging_offsets;  // per merged copy
};

PreparedStep prepare_step(Runtime& runtime, const kit::ResidentDispatch& step, InFlightGuard& in_flight) {
  PreparedStep prepared;
  prepared.plan = plan_execution(runtime, cuda_program(*step.program), step.geometry, step.buffer_elements);
  Block unused_staging;
  Block unused_device;
  auto pointers = bind_resident(runtime, step, false, unused_staging, unused_device, nullptr);
  for (const kit::CheckedBinding& binding : step.bindings) in_flight.add(binding.resident);
  prepared.bindings = make_bindings(prepared.plan, std::move(pointers), step.buffer_elements);
  prepared.barrier = runtime.device_memory().acquire(prepared.plan.grid_barrier_bytes);
  return prepared;
}

std::vector<PreparedRead> prepare_reads(const kit::CheckedSequence& sequence, std::uint64_t* staging_total) {
  std::map<CudaResident*, std::vector<std::size_t>> by_buffer;
  for (std::size_t i = 0; i < sequence.reads.size(); ++i) {
    by_buffer[&cuda_resident(*sequence.reads[i].src)].push_back(i);
  }
  std::vector<PreparedRead> prepared;
  std::vector<std::uint64_t> sizes;
  for (auto& [buffer, indices] : by_buffer) {
    std::vector<ByteSpan> spans;
    for (std::size_t i : indices) spans.push_back(ByteSpan{sequence.reads[i].offset, sequence.reads[i].data.size()});
    PreparedRead read{buffer, plan_ranges(spans), indices, {}};
    for (const ByteSpan& copy : read.plan.copies) sizes.push_back(copy.length);
    prepared.push_back(std::move(read));
  }
  const auto offsets = pack_offsets(sizes, kAlignment, staging_total);
  std::size_t next = 0;
  for (PreparedRead& read : prepared) {
    for (std::size_t c = 0; c < read.plan.copies.size(); ++c) read.staging_offsets.push_back(offsets[next++]);
  }
  return prepared;
}

void launch_direct(Runtime& runtime, std::vector<PreparedStep>& steps, std::uint64_t times, drv::CUstream stream) {
  for (std::uint64_t r = 0; r < times; ++r) {
    for (PreparedStep& step : steps) {
      enqueue_execution(runtime, step.plan, step.bindings, stream, step.barrier.address());
    }
  }
}

bool graphable(const std::vector<PreparedStep>& steps) {
  if (env_flag(std::getenv(kDisableGraphsEnv))) return false;
  for (const PreparedStep& step : steps) {
    if (step.plan.cooperative) return false;
  }
  return true;
}

// The repeated steps as one cached graph, updated in place when only bindings or counts differ
// (with its cache key), or null when they launch directly: graphs are off, a step is cooperative,
// or the driver refuses the graph (an absorbed failure: the direct launches do the same work).
std::unique_ptr<KernelGraph> repeated_graph(Runtime& runtime, const std::vector<PreparedStep>& steps,
                                            std::string* key) {
  if (steps.empty() || !graphable(steps)) return nullptr;
  std::vector<GraphNodeSpec> nodes;
  for (const PreparedStep& step : steps) {
    auto step_nodes = graph_nodes(step.plan, step.bindings);
    for (auto& node : step_nodes) nodes.push_back(std::move(node));
  }
  if (nodes.empty()) return nullptr;
  *key = KernelGraph::key(nodes);
  std::unique_ptr<KernelGraph> graph = runtime.graphs().take(*key);
  try {
    if (graph) {
      graph->update(std::move(nodes));
    } else {
      graph = std::make_unique<KernelGraph>(runtime.context(), runtime.telemetry(), std::move(nodes));
    }
  } catch (const Error& error) {
    kit::log(VYRE_LOG_WARN, std::string("cuda: sequence graph unavailable, launching directly: ") + error.what());
    Telemetry::add(runtime.telemetry().graph_fallbacks);
    return nullptr;
  }
  return graph;
}

// Launch the repeated steps `times` times: through `graph` when there is one, else directly.
void launch_repeated(Runtime& runtime, std::vector<PreparedStep>& steps, KernelGraph* graph, std::uint64_t times,
                     drv::CUstream stream) {
  if (times == 0 || steps.empty()) return;
  if (graph == nullptr) {
    launch_direct(runtime, steps, times, stream);
    return;
  }
  for (std::uint64_t r = 0; r < times; ++r) graph->launch(stream);
  Telemetry::add(runtime.telemetry().kernel_launches, graph->size() * times);
}

}  // namespace

void run_sequence(Runtime& runtime, const kit::CheckedSequence& sequence) {
  runtime.bind();
  runtime.deferred().reap();
  // Every check and every allocation before the first queued operation.
  InFlightGuard in_flight;
  std::vector<PreparedStep> prefix;
  std::vector<PreparedStep> repeated;
  for (const auto& step : sequence.prefix) prefix.push_back(prepare_step(runtime, step, in_flight));
  for (const auto& step : sequence.repeated) repeated.push_back(prepare_step(runtime, step, in_flight));
  for (const auto& read : sequence.reads) in_flight.add(read.src);
  std::uint64_t staging_total = 0;
  std::vector<PreparedRead> reads = prepare_reads(sequence, &staging_total);
  Block staging = runtime.staging().acquire(staging_total);
  StreamLease stream = runtime.streams().acquire();
  EventRef fence = runtime.events().acquire();
  const Driver& driver = runtime.driver();
  Telemetry& telemetry = runtime.telemetry();

  // Declared before queuing: on a failure part-way the graph outlives the drain of its stream.
  std::string graph_key;
  std::unique_ptr<KernelGraph> graph =
      sequence.repeat_count > 0 ? repeated_graph(runtime, repeated, &graph_key) : nullptr;
  try {
    ResidentOrder order(runtime, stream.get());
    for (const auto& buffer : in_flight.buffers()) order.use(cuda_resident(*buffer));
    launch_direct(runtime, prefix, 1, stream.get());
    launch_repeated(runtime, repeated, graph.get(), sequence.repeat_count, stream.get());
    for (const PreparedRead& read : reads) {
      for (std::size_t c = 0; c < read.plan.copies.size(); ++c) {
        const ByteSpan& copy = read.plan.copies[c];
        driver.check(driver.cuMemcpyDtoHAsync(staging.host() + read.staging_offsets[c], read.buffer->pointer() + copy.offset,
                                              copy.length, stream.get()),
                     "cuMemcpyDtoHAsync(sequence read)");
        Telemetry::add(telemetry.d2h_operations);
        Telemetry::add(telemetry.d2h_bytes, copy.length);
      }
    }
    driver.check(driver.cuEventRecord(fence->get(), stream.get()), "cuEventRecord(sequence)");
    order.commit(fence);
  } catch (...) {
    runtime.drain(stream.get());  // what was queued must finish before memory is reused
    throw;
  }
  Telemetry::add(telemetry.dispatches, prefix.size() + repeated.size() * sequence.repeat_count);
  const drv::CUresult done = driver.cuEventSynchronize(fence->get());
  Telemetry::add(telemetry.sync_points);
  if (done != drv::CUDA_SUCCESS) runtime.drain(stream.get());  // before staging and the graph are reused
  if (graph) runtime.graphs().give_back(std::move(graph_key), std::move(graph));
  driver.check(done, "cuEventSynchronize(sequence)",
               "run the steps one by one (dispatch_resident) to find the failing one; after a sticky "
               "device error the instance must be recreated");
  for (const PreparedRead& read : reads) {
    for (std::size_t k = 0; k < read.reads.size(); ++k) {
      const std::size_t copy_index = read.plan.copy_of[k];
      if (copy_index == kNoCopy) continue;
      const kit::CheckedRead& target = sequence.reads[read.reads[k]];
      const ByteSpan& copy = read.plan.copies[copy_index];
      std::memcpy(target.data.data(), staging.host() + read.staging_offsets[copy_index] + (target.offset - copy.offset),
                  target.data.size());
    }
  }
}

}  // namespace vyre::cuda
