#include "async_dispatch.hpp"

#include <chrono>
#include <new>

namespace vyre::refcpu {

namespace {

Error as_error(std::exception_ptr failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const Error& e) {
    return e;
  } catch (const std::bad_alloc&) {
    return Error::make(VYRE_ERR_OUT_OF_MEMORY, "reference_cpu ran out of host memory during an asynchronous dispatch",
                       "dispatch fewer elements or free host memory");
  } catch (...) {
    return Error::make(VYRE_ERR_INTERNAL, "reference_cpu failed during an asynchronous dispatch",
                       "report this as a reference_cpu bug with the program attached");
  }
}

}  // namespace

AsyncDispatch::AsyncDispatch(const kit::HostDispatch& dispatch, StopCondition::Clock::time_point start, Run run)
    : dispatch_(dispatch), stop_(dispatch.config, start, &cancelled_) {
  input_copies_.reserve(dispatch.inputs.size());
  for (std::size_t i = 0; i < dispatch.inputs.size(); ++i) {
    input_copies_.emplace_back(dispatch.inputs[i].begin(), dispatch.inputs[i].end());
    dispatch_.inputs[i] = kit::Bytes(input_copies_.back().data(), input_copies_.back().size());
  }
  thread_ = std::thread([this, run = std::move(run)] {
    std::optional<Error> failure;
    try {
      run(dispatch_, stop_);
    } catch (...) {
      failure = as_error(std::current_exception());
    }
    std::lock_guard lock(mutex_);
    failure_ = std::move(failure);
    done_ = true;
    done_changed_.notify_all();
  });
}

AsyncDispatch::~AsyncDispatch() {
  if (thread_.joinable()) thread_.join();
}

bool AsyncDispatch::finished_locked() {
  if (!done_) return false;
  if (failure_) throw *failure_;
  return true;
}

bool AsyncDispatch::poll() {
  std::lock_guard lock(mutex_);
  return finished_locked();
}

bool AsyncDispatch::wait(std::uint64_t timeout_ns) {
  std::unique_lock lock(mutex_);
  // Waits longer than a day are waits for ever (and keep the clock arithmetic far from overflow).
  constexpr std::uint64_t kForever = 86'400'000'000'000ull;
  if (timeout_ns >= kForever) {
    done_changed_.wait(lock, [&] { return done_; });
  } else {
    done_changed_.wait_for(lock, std::chrono::nanoseconds(timeout_ns), [&] { return done_; });
  }
  return finished_locked();
}

void AsyncDispatch::cancel() { cancelled_.store(true, std::memory_order_relaxed); }

}  // namespace vyre::refcpu
