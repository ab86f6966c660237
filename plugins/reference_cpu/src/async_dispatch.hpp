// A host dispatch running on a thread of its own (dispatch_async): pending_cancel stops it at the
// next check of its StopCondition, and destroying it waits for the thread. Thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "vyre/stop_condition.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::refcpu {

class AsyncDispatch final : public kit::Pending {
 public:
  using Run = std::function<void(const kit::HostDispatch&, const StopCondition&)>;

  // Copies `dispatch`'s inputs (they are borrowed for the caller's call only) and starts
  // run(copy, stop) on a new thread; the deadline counts from `start`. The output targets must
  // stay valid until the work finished (the kit's contract for dispatch_async).
  AsyncDispatch(const kit::HostDispatch& dispatch, StopCondition::Clock::time_point start, Run run);
  ~AsyncDispatch() override;
  AsyncDispatch(const AsyncDispatch&) = delete;
  AsyncDispatch& operator=(const AsyncDispatch&) = delete;

  bool poll() override;
  bool wait(std::uint64_t timeout_ns) override;
  void cancel() override;

 private:
  bool finished_locked();  // rethrows the work's error once it finished

  std::vector<std::vector<std::byte>> input_copies_;
  kit::HostDispatch dispatch_;
  std::atomic<bool> cancelled_{false};
  StopCondition stop_;
  std::mutex mutex_;
  std::condition_variable done_changed_;
  bool done_ = false;
  std::optional<Error> failure_;
  std::thread thread_;
};

}  // namespace vyre::refcpu
