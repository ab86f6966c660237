// Everything one backend instance shares: the driver, the device and its primary context, the
// pools (streams, events, device memory, pinned staging), the module and graph caches, the
// telemetry and the resident-memory budget. Objects that outlive a call (programs, resident
// buffers, pending dispatches, pipelines) hold a shared_ptr to it, declared before their own
// resources, so the runtime is torn down last.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include "lowering.hpp"
#include "runtime/block_pool.hpp"
#include "runtime/context.hpp"
#include "runtime/deferred_release.hpp"
#include "runtime/device_info.hpp"
#include "runtime/kernel_graph.hpp"
#include "runtime/module_cache.hpp"
#include "runtime/repeat_launch.hpp"
#include "runtime/stream_pool.hpp"
#include "runtime/telemetry.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::cuda {

// Set to 1 to run grid_sync programs as one launch per phase even where a cooperative launch fits.
inline constexpr const char* kForceSplitGridSyncEnv = "VYRE_CUDA_FORCE_SPLIT_GRID_SYNC";
// Set to 1 to launch the `whole` entry of elementwise programs (no vectorised entry); for A/B runs.
inline constexpr const char* kDisableElementwiseEnv = "VYRE_CUDA_DISABLE_ELEMENTWISE";
// Set to 1 to lower every module without the optimizer (every access keeps its bounds check,
// lowering.hpp LowerOptions::optimize); for A/B runs.
inline constexpr const char* kDisableOptimizerEnv = "VYRE_CUDA_DISABLE_OPTIMIZER";
// Set to 1 to stage every host dispatch through device memory (no mapped host memory); for A/B runs.
inline constexpr const char* kDisableMappedHostEnv = "VYRE_CUDA_DISABLE_MAPPED_HOST";
// Set to 1 to queue the repeated steps of sequences (read per sequence) and the device work of
// compiled pipelines (read when a pipeline meets a new input shape) directly, without graphs.
inline constexpr const char* kDisableGraphsEnv = "VYRE_CUDA_DISABLE_GRAPHS";
// Set to 1 to capture the device work of image- and copies-staged pipeline shapes into a graph
// (read when a pipeline meets a new input shape); by default they run as plain dispatches, which
// was measured faster (bench/NOTES.md, change 7).
inline constexpr const char* kPipelineCaptureEnv = "VYRE_CUDA_PIPELINE_CAPTURE";

// The code generation target for a device: its compute capability, capped at what the emitter is
// declared for (sm_90; newer devices JIT the sm_90 PTX).
Target target_for_device(const DeviceInfo& device);

// True for "1", "true", "yes", "on" (any case).
bool env_flag(const char* value);

class Runtime {
 public:
  // Open the driver and the device `options` (or VYRE_CUDA_DEVICE_ORDINAL) names. Throws
  // vyre::Error: VYRE_ERR_NO_DEVICE with what to check where CUDA cannot run here,
  // VYRE_ERR_INVALID_ARGUMENT for a malformed ordinal.
  static std::shared_ptr<Runtime> open(const vyre::CreateOptions& options);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Make the context current on the calling thread; every entry point calls it first.
  void bind() const { context_.bind(); }
  bool bind_quietly() const noexcept { return context_.bind_quietly(); }

  const Driver& driver() const { return driver_; }
  const Context& context() const { return context_; }
  const DeviceInfo& device() const { return device_; }
  const Target& target() const { return modules_.target(); }
  bool force_split_grid_sync() const { return force_split_grid_sync_; }
  bool elementwise_entries() const { return elementwise_entries_; }
  // Small elementwise host dispatches may run on mapped pinned memory (host_run.hpp).
  bool mapped_host_dispatch() const { return mapped_host_dispatch_; }

  Telemetry& telemetry() { return telemetry_; }
  StreamPool& streams() { return streams_; }
  EventPool& events() { return events_; }
  BlockPool& device_memory() { return device_memory_; }
  BlockPool& staging() { return staging_; }
  DeferredRelease& deferred() { return deferred_; }
  ModuleCache& modules() { return modules_; }
  GraphCache& graphs() { return graphs_; }
  // Repeated identical launches of resident and host dispatches replay one-node graphs.
  RepeatLaunches& repeat_launches() { return repeats_; }

  // Held while queuing work on resident buffers, so each buffer's "last operation" event orders
  // work across streams (resident.hpp).
  std::mutex& order_mutex() { return order_mutex_; }

  // Account `bytes` of resident memory against the budget (CreateOptions::memory_budget_bytes, or
  // what the device has free plus what the pool holds idle). Throws VYRE_ERR_OUT_OF_MEMORY naming
  // the requested and available bytes; nothing is reserved then.
  void reserve_resident(std::uint64_t bytes);
  void release_resident(std::uint64_t bytes);

  // (free, total) device memory now.
  std::pair<std::uint64_t, std::uint64_t> memory_info() const;

  // Wait for everything queued on `stream` so far, after a failure part-way: the memory that work
  // uses may be reused only then. Never throws (a sticky device error ends the wait at once).
  void drain(drv::CUstream stream) const noexcept;

 private:
  Runtime(const Driver& driver, drv::CUdevice device, DeviceInfo info, const vyre::CreateOptions& options);
  static BlockPoolHooks device_hooks(const Context& context, Telemetry& telemetry);
  static BlockPoolHooks staging_hooks(const Context& context, Telemetry& telemetry);

  const Driver& driver_;
  DeviceInfo device_;
  Context context_;
  bool force_split_grid_sync_ = false;
  bool elementwise_entries_ = true;
  bool mapped_host_dispatch_ = false;
  std::uint64_t memory_budget_bytes_ = 0;
  Telemetry telemetry_;
  StreamPool streams_;
  EventPool events_;
  BlockPool device_memory_;
  BlockPool staging_;
  DeferredRelease deferred_;
  ModuleCache modules_;
  GraphCache graphs_;
  RepeatLaunches repeats_;  // after modules_: destroyed before the modules are unloaded
  std::mutex order_mutex_;
  std::mutex budget_mutex_;
  std::uint64_t resident_live_bytes_ = 0;
};

}  // namespace vyre::cuda
