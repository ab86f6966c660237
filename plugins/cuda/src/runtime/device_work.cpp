#include "runtime/device_work.hpp"

#include <thread>

#include <fmt/format.h>

namespace vyre::cuda {

std::uint64_t elapsed_ns(std::chrono::steady_clock::time_point since) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - since).count());
}

DeviceWork::DeviceWork(std::shared_ptr<Runtime> runtime, const char* what)
    : runtime_(std::move(runtime)), what_(what), stream_(runtime_->streams().acquire()) {}

DeviceWork::DeviceWork(std::shared_ptr<Runtime> runtime, const char* what, StreamLease stream)
    : runtime_(std::move(runtime)), what_(what), stream_(std::move(stream)) {}

DeviceWork::~DeviceWork() { finish_before_destroy(); }

void DeviceWork::finish_before_destroy() noexcept {
  try {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
    runtime_->bind_quietly();  // only unfinished work makes driver calls here
    // Nothing is delivered: the caller no longer waits for this work. Queuing may have stopped
    // part-way (no fence), or the fence may not record or complete: then drain the stream itself.
    if (fence_ == nullptr) {
      runtime_->drain(stream_.get());
    } else {
      drv::CUevent fence = nullptr;
      try {
        fence = fence_->get();
      } catch (const std::exception&) {
        fence = nullptr;
      }
      if (fence == nullptr || runtime_->driver().cuEventSynchronize(fence) != drv::CUDA_SUCCESS) {
        runtime_->drain(queued_on_);
      }
    }
    release_resources();
  } catch (const std::exception& error) {
    kit::log(VYRE_LOG_ERROR, std::string("cuda: releasing unfinished work failed: ") + error.what());
  }
}

void DeviceWork::seal() {
  // Recorded when first used (Event): no driver call per dispatch here.
  fence_ = runtime_->events().acquire_deferred(stream_.get());
  queued_on_ = stream_.get();
  stream_ = StreamLease();  // queuing is over; the fence now stands for the work
}

bool DeviceWork::bound() {
  try {
    runtime_->bind();
    return true;
  } catch (const Error& error) {
    fail_with(error);  // a wait that cannot be made fails the work: nothing is delivered later
    return false;
  }
}

drv::CUevent DeviceWork::fence_event() {
  try {
    return fence_->get();
  } catch (const Error& error) {
    fail_with(error);
    return nullptr;
  }
}

bool DeviceWork::poll() {
  std::lock_guard lock(mutex_);
  if (!finished_ && bound()) {
    const drv::CUevent fence = fence_event();
    if (fence != nullptr) {
      const drv::CUresult result = runtime_->driver().cuEventQuery(fence);
      if (result == drv::CUDA_ERROR_NOT_READY) return false;
      finish(result, "cuEventQuery");
    }
  }
  throw_if_failed();
  return true;
}

bool DeviceWork::wait(std::uint64_t timeout_ns) {
  std::lock_guard lock(mutex_);
  if (!finished_) bound();  // a failure finishes the work with it: wait_locked throws it
  return wait_locked(timeout_ns);
}

void DeviceWork::wait_on_queuing_thread() {
  std::lock_guard lock(mutex_);
  wait_locked(UINT64_MAX);
}

bool DeviceWork::wait_locked(std::uint64_t timeout_ns) {
  if (!finished_) {
    const drv::CUevent fence = fence_event();
    if (fence != nullptr) {
      const auto start = std::chrono::steady_clock::now();
      drv::CUresult result = drv::CUDA_SUCCESS;
      const char* call = "cuEventSynchronize";
      if (timeout_ns == UINT64_MAX) {
        result = runtime_->driver().cuEventSynchronize(fence);
      } else {
        call = "cuEventQuery";
        while ((result = runtime_->driver().cuEventQuery(fence)) == drv::CUDA_ERROR_NOT_READY) {
          if (elapsed_ns(start) >= timeout_ns) {
            wait_ns_ += elapsed_ns(start);
            return false;
          }
          std::this_thread::yield();
        }
      }
      wait_ns_ += elapsed_ns(start);
      Telemetry::add(runtime_->telemetry().sync_points);
      finish(result, call);
    }
  }
  throw_if_failed();
  return true;
}

void DeviceWork::finish(drv::CUresult result, const char* call) {
  if (result != drv::CUDA_SUCCESS) {
    fail_with(Error::make(
        status_for(result),
        fmt::format("{} failed for the {}: {}", call, what_, runtime_->driver().describe(result)),
        "run the program on reference_cpu to compare, and under compute-sanitizer to find a faulting "
        "access; after a sticky device error (e.g. CUDA_ERROR_ILLEGAL_ADDRESS) the instance must be "
        "recreated"));
    return;
  }
  finished_ = true;
  try {
    on_success();
  } catch (const Error& error) {
    failure_ = error;
  } catch (const std::exception& error) {
    failure_ = Error::make(VYRE_ERR_INTERNAL, fmt::format("{} failed: {}", what_, error.what()),
                           "report this with the program");
  }
  release_resources();
}

void DeviceWork::fail_with(Error error) {
  finished_ = true;
  failure_ = std::move(error);
  runtime_->drain(queued_on_);  // the work may still run: its memory is released only after it
  release_resources();
}

void DeviceWork::release_resources() {
  on_finish();
  blocks_.clear();
}

void DispatchTimer::record_start(Runtime& runtime, drv::CUstream stream) {
  start_ = runtime.events().acquire(true);
  end_ = runtime.events().acquire(true);
  const Driver& driver = runtime.driver();
  driver.check(driver.cuEventRecord(start_->get(), stream), "cuEventRecord(start)");
}

void DispatchTimer::record_end(Runtime& runtime, drv::CUstream stream) {
  if (!end_) return;
  const Driver& driver = runtime.driver();
  driver.check(driver.cuEventRecord(end_->get(), stream), "cuEventRecord(end)");
}

void DispatchTimer::read_device_time(Runtime& runtime, const char* what) {
  if (!start_ || !end_) return;
  float ms = 0.0f;
  const Driver& driver = runtime.driver();
  driver.check(driver.cuEventElapsedTime(&ms, start_->get(), end_->get()),
               fmt::format("cuEventElapsedTime({})", what),
               "the dispatch finished but its device time is unknown; dispatch it again, untimed if "
               "this repeats");
  device_ns_ = static_cast<std::uint64_t>(static_cast<double>(ms) * 1e6);
}

vyre::Timing DispatchTimer::timing(std::uint64_t wait_ns) const {
  vyre::Timing timing;
  timing.wall_ns = elapsed_ns(started_);
  timing.enqueue_ns = enqueue_ns_;
  timing.wait_ns = wait_ns;
  if (device_ns_) {
    timing.device_ns = *device_ns_;
    timing.has_device_ns = true;
  }
  return timing;
}

void DeviceWork::throw_if_failed() const {
  if (failure_) throw *failure_;
}

}  // namespace vyre::cuda
