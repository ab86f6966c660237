// A host dispatch: the program's storage buffers laid out in one block (each binding at a
// 256-byte aligned offset), inputs written, `output` buffers zeroed, the program recorded, and the
// outputs' byte ranges delivered to the caller once its work finished. On unified-memory devices,
// and for layouts up to kMappedHostLimit of programs without atomics elsewhere (unless VYRE_VULKAN_DISABLE_MAPPED_HOST=1), the
// host-visible block is bound directly; otherwise a device block mirrors it and copies move inputs
// in and outputs out. Sync, async (Pending) and timed dispatches, and pipelines, share it.
#pragma once

#include <memory>
#include <mutex>

#include "runtime/recorder.hpp"

namespace vyre::vulkan {

inline constexpr std::uint64_t kMappedHostLimit = 256ull << 10;
inline constexpr const char* kDisableMappedHostEnv = "VYRE_VULKAN_DISABLE_MAPPED_HOST";

class HostRun {
 public:
  // Checks, stages and submits. Throws before any device work for device-dependent limits.
  HostRun(std::shared_ptr<Runtime> rt, const kit::HostDispatch& dispatch, bool timed);
  ~HostRun();
  HostRun(const HostRun&) = delete;
  HostRun& operator=(const HostRun&) = delete;

  // true once finished; the outputs are then delivered (exactly once). Throws if the work failed.
  bool poll();
  bool wait(std::uint64_t timeout_ns);
  // Timed runs only (they keep their submission for its timestamps).
  std::uint64_t device_ns() { return submission_->device_ns(); }

 private:
  struct Slot {
    std::uint64_t offset = 0;
    std::uint64_t bytes = 0;
  };
  void deliver();

  std::shared_ptr<Runtime> rt_;
  std::shared_ptr<const kit::CompiledProgram> program_;
  std::vector<kit::OutputTarget> outputs_;
  std::vector<std::uint64_t> output_offsets_;  // per output: its binding's offset in the block
  Block staging_;
  Block device_;
  SubmissionHandle submission_;  // released at submit unless timed
  std::uint64_t value_ = 0;      // the submission's timeline value
  bool delivered_ = false;
};

// kit::Pending over a HostRun (thread-safe).
class HostPending final : public kit::Pending {
 public:
  explicit HostPending(std::unique_ptr<HostRun> run) : run_(std::move(run)) {}
  ~HostPending() override;
  bool poll() override;
  bool wait(std::uint64_t timeout_ns) override;

 private:
  std::mutex mutex_;
  std::unique_ptr<HostRun> run_;
};

}  // namespace vyre::vulkan
