// The reference CPU backend: vyre::kit::BackendImpl over the compiled interpreter. Host dispatches run
// on staged copies (no output byte is written unless the dispatch succeeds); resident buffers are
// host memory (its own, or the caller's: resident_import). Everything but dispatch_async completes
// before the call returns; dispatch_async runs on a thread of its own and can be cancelled. Every
// dispatch honours its time limit (DispatchConfig::time_limit_ns). memory_budget_bytes caps the
// resident buffers it allocates and the staged copies of host dispatches together.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "executable.hpp"
#include "launcher.hpp"
#include "vyre/stop_condition.hpp"
#include "thread_pool.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::refcpu {

class ReferenceBackend final : public kit::BackendImpl {
 public:
  explicit ReferenceBackend(const vyre::CreateOptions& options);

  void device_profile(vyre_device_profile& out) override;
  std::shared_ptr<kit::CompiledProgram> compile(Program program, std::string fingerprint) override;

  void dispatch(const kit::HostDispatch& dispatch) override;
  std::unique_ptr<kit::Pending> dispatch_async(const kit::HostDispatch& dispatch) override;

  std::shared_ptr<kit::DeviceBuffer> resident_alloc(std::uint64_t byte_len) override;
  void resident_free(kit::DeviceBuffer& buffer) override;
  void resident_upload(std::span<const kit::CheckedWrite> writes) override;
  void resident_download(std::span<const kit::CheckedRead> reads) override;
  std::unique_ptr<kit::Pending> dispatch_resident(const kit::ResidentDispatch& dispatch, bool wait) override;
  // External memory: host pointers (VYRE_MEMORY_HOST) only, 8-byte aligned.
  std::shared_ptr<kit::DeviceBuffer> resident_import(const kit::ImportRequest& memory) override;
  kit::MemoryLocation resident_export(kit::DeviceBuffer& buffer) override;

  std::vector<kit::Counter> metrics() override;
  void metrics_reset() override;

 private:
  void run(const Executable& exe, const LaunchGeometry& geometry, std::span<const MemView> buffers,
           const StopCondition& stop);
  void run_host(const kit::HostDispatch& dispatch, const StopCondition& stop);
  void run_resident(const kit::ResidentDispatch& dispatch);
  // Count `bytes` against memory_budget_bytes (VYRE_ERR_OUT_OF_MEMORY naming `what` when over);
  // release() gives them back.
  void reserve(std::uint64_t bytes, std::string_view what);
  void release(std::uint64_t bytes) { budget_used_.fetch_sub(bytes, std::memory_order_relaxed); }

  unsigned workers_ = 1;
  bool reverse_ = false;
  std::uint64_t memory_budget_ = 0;
  std::unique_ptr<ThreadPool> pool_;

  std::atomic<std::uint64_t> resident_bytes_{0};
  std::atomic<std::uint64_t> budget_used_{0};  // resident buffers + staged host dispatch memory
  struct Counters {
    std::atomic<std::uint64_t> programs{0};
    std::atomic<std::uint64_t> dispatches{0};
    std::atomic<std::uint64_t> resident_dispatches{0};
    std::atomic<std::uint64_t> workgroups{0};
    std::atomic<std::uint64_t> invocations{0};
    std::atomic<std::uint64_t> bytes_in{0};
    std::atomic<std::uint64_t> bytes_out{0};
    std::atomic<std::uint64_t> execution_errors{0};
  } counters_;
};

}  // namespace vyre::refcpu
