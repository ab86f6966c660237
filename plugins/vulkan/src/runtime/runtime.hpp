// What one backend instance shares: the device, memory pool, submissions, the pipeline cache,
// telemetry and the resident-memory budget.
#pragma once

#include <atomic>
#include <memory>
#include <span>

#include "codegen/fma_probe.hpp"
#include "runtime/batcher.hpp"
#include "runtime/device.hpp"
#include "runtime/memory.hpp"
#include "runtime/pipeline_cache.hpp"
#include "runtime/submission.hpp"
#include "runtime/telemetry.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::vulkan {

struct Runtime {
  // Opens the device (throws VYRE_ERR_NO_DEVICE / VYRE_ERR_INVALID_ARGUMENT).
  static std::shared_ptr<Runtime> open(const vyre::CreateOptions& options);

  std::shared_ptr<Device> device;
  std::shared_ptr<Memory> memory;
  Telemetry telemetry;  // before (destroyed after) the pool and batcher that count into it
  std::unique_ptr<SubmissionPool> submissions;
  std::unique_ptr<Batcher> batcher;  // after (destroyed before) the pool it draws from
  std::unique_ptr<PipelineCache> pipeline_cache;
  std::uint64_t memory_budget = 0;  // resident bytes allowed
  bool mapped_host = true;          // small host dispatches bind mapped memory (host_dispatch.hpp)
  std::atomic<std::uint64_t> resident_reserved{0};
};

// Test hook: "exact" runs the fma probe over fma_probe_exact_cases, which every device passes, so
// GLSL.std.450 Fma becomes the fma even where it is not fused (wrong results for inexact products).
// Only for tests of the "probe passed" path on a device that does not fuse (lavapipe).
inline constexpr const char* kFmaProbeTableEnv = "VYRE_VULKAN_FMA_PROBE_TABLE";

struct FmaProbeOutcome {
  // The gauges fma_probe_f32/f64 (telemetry.hpp).
  enum Verdict : std::uint64_t { NotRun = 0, Passed = 1, Mismatched = 2, Failed = 3 };
  Verdict verdict = NotRun;
  std::size_t mismatches = 0;  // entries that differed (Mismatched)
};

// The fma probe of width `t` (F32, F64; codegen/fma_probe.hpp), at create while `rt` is not yet
// shared: GLSL.std.450 Fma stays the width's fma (FmaSource::Probe) only when every probe result
// matches; anything else (a mismatch, any failure of the compile or dispatch) leaves the emulation
// (which Runtime::open then replaces with FmaSource::Wide for f32 where the device has f64).
FmaProbeOutcome probe_fma(const std::shared_ptr<Runtime>& rt, Type t) noexcept;
// One probe dispatch over `cases` with the device's current features: the number of results that
// differ from the expected bits. Throws what the compile or dispatch throws.
std::size_t run_fma_probe(const std::shared_ptr<Runtime>& rt, Type t, std::span<const FmaProbeCase> cases);

// Waits for a submission; returns it to the pool.
class SubmissionHandle {
 public:
  explicit SubmissionHandle(Runtime& rt) : rt_(&rt), s_(rt.submissions->acquire()) {}
  ~SubmissionHandle() { release(); }
  SubmissionHandle(SubmissionHandle&&) = default;
  SubmissionHandle& operator=(SubmissionHandle&&) = default;
  Submission* operator->() { return s_.get(); }
  Submission& operator*() { return *s_; }
  void release() noexcept;

 private:
  Runtime* rt_;
  std::unique_ptr<Submission> s_;
};

}  // namespace vyre::vulkan
