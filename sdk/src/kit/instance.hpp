// One backend instance as the kit sees it: the plugin's BackendImpl plus the handle tables of
// everything created through it. Instances live in a process-wide table keyed by their handle,
// so a bad vyre_backend* is an error rather than a dereference.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "handles.hpp"
#include "output_cache.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::kit::detail {

// An in-flight asynchronous dispatch and what it must keep alive until it finishes.
struct PendingEntry {
  std::unique_ptr<Pending> pending;
  std::shared_ptr<const CompiledProgram> program;
  std::vector<std::shared_ptr<DeviceBuffer>> residents;

  ~PendingEntry();  // destroys `pending` (which waits) before dropping what it uses
};

struct PipelineEntry {
  std::shared_ptr<CompiledPipeline> pipeline;
  std::unique_ptr<OutputCache> cache;  // set with VYRE_PIPELINE_CACHE_OUTPUTS
};

class Instance {
 public:
  explicit Instance(std::unique_ptr<BackendImpl> backend);
  ~Instance();  // waits for pending work, frees every handle, then the backend
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  BackendImpl& backend() { return *backend_; }

  HandleTable<const CompiledProgram> programs{"program"};
  HandleTable<DeviceBuffer> residents{"resident buffer"};
  HandleTable<PendingEntry> pendings{"pending dispatch"};
  HandleTable<PipelineEntry> pipelines{"pipeline"};

  std::atomic<std::uint64_t> cache_hits{0};
  std::atomic<std::uint64_t> cache_misses{0};

 private:
  std::unique_ptr<BackendImpl> backend_;
};

// Register a new instance; returns its handle id.
std::uint64_t add_instance(std::shared_ptr<Instance> instance);
// The live instance, or VYRE_ERR_INVALID_HANDLE.
std::shared_ptr<Instance> find_instance(const vyre_backend* handle);
// Remove the instance from the table (destroyed when the last in-progress call returns); null
// when the handle is not live.
std::shared_ptr<Instance> take_instance(const vyre_backend* handle) noexcept;

}  // namespace vyre::kit::detail
