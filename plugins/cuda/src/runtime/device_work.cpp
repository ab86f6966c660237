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
    runtime_->bind_quietly();
    std::lock_guard lock(mutex_);
    if (finished_) return;
    if (fence_ == nullptr) {
      // Queuing failed part-way: drain what reached the stream before releasing its memory.
      runtime_->driver().cuStreamSynchronize(stream_.get());
      finish(drv::CUDA_ERROR_NOT_READY);
      return;
    }
    drv::CUevent fence = nullptr;
    try {
      fence = fence_->get();
    } catch (const std::exception&) {
      // The deferred record failed (a broken stream): drain the stream itself instead.
      runtime_->driver().cuStreamSynchronize(queued_on_);
      finish(drv::CUDA_ERROR_NOT_READY);
      return;
    }
    finish(runtime_->driver().cuEventSynchronize(fence));
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

bool DeviceWork::poll() {
  std::lock_guard lock(mutex_);
  if (!finished_) {
    runtime_->bind();
    const drv::CUresult result = runtime_->driver().cuEventQuery(fence_->get());
    if (result == drv::CUDA_ERROR_NOT_READY) return false;
    finish(result);
  }
  throw_if_failed();
  return true;
}

bool DeviceWork::wait(std::uint64_t timeout_ns) {
  std::lock_guard lock(mutex_);
  if (!finished_) {
    runtime_->bind();
    const auto start = std::chrono::steady_clock::now();
    drv::CUresult result = drv::CUDA_SUCCESS;
    if (timeout_ns == UINT64_MAX) {
      result = runtime_->driver().cuEventSynchronize(fence_->get());
    } else {
      while ((result = runtime_->driver().cuEventQuery(fence_->get())) == drv::CUDA_ERROR_NOT_READY) {
        if (elapsed_ns(start) >= timeout_ns) {
          wait_ns_ += elapsed_ns(start);
          return false;
        }
        std::this_thread::yield();
      }
    }
    wait_ns_ += elapsed_ns(start);
    Telemetry::add(runtime_->telemetry().sync_points);
    finish(result);
  }
  throw_if_failed();
  return true;
}

void DeviceWork::finish(drv::CUresult result) {
  finished_ = true;
  if (result == drv::CUDA_SUCCESS) {
    try {
      on_success();
    } catch (const Error& error) {
      failure_ = error;
    } catch (const std::exception& error) {
      failure_ = Error::make(VYRE_ERR_INTERNAL, fmt::format("{} failed: {}", what_, error.what()),
                             "report this with the program");
    }
  } else {
    failure_ = Error::make(
        status_for(result),
        fmt::format("{} failed on the device: {}", what_,
                    result == drv::CUDA_ERROR_NOT_READY ? std::string("queuing was interrupted")
                                                        : runtime_->driver().describe(result)),
        "run the program on reference_cpu to compare, and under compute-sanitizer to find the "
        "faulting access; after a device fault the instance must be recreated");
  }
  on_finish();
  blocks_.clear();
}

void DeviceWork::throw_if_failed() const {
  if (failure_) throw *failure_;
}

}  // namespace vyre::cuda
