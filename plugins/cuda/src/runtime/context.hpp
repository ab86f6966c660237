// The device's primary context, retained for the life of an instance. Every entry point binds it to
// the calling thread first (cuCtxSetCurrent is per thread and cheap), so any thread may call in.
#pragma once

#include "runtime/driver.hpp"

namespace vyre::cuda {

class Context {
 public:
  // Throws vyre::Error (VYRE_ERR_NO_DEVICE) when the primary context cannot be retained.
  Context(const Driver& driver, drv::CUdevice device);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // Make this context current on the calling thread. Throws VYRE_ERR_DEVICE on failure.
  void bind() const;
  // The same for destructors and teardown: never throws; false when the driver refused (e.g. it
  // is already shutting down at process exit).
  bool bind_quietly() const noexcept;

  const Driver& driver() const { return driver_; }
  drv::CUdevice device() const { return device_; }

 private:
  const Driver& driver_;
  drv::CUdevice device_;
  drv::CUcontext context_ = nullptr;
};

}  // namespace vyre::cuda
