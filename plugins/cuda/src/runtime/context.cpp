#include "runtime/context.hpp"

#include "vyre/error.hpp"

namespace vyre::cuda {

Context::Context(const Driver& driver, drv::CUdevice device) : driver_(driver), device_(device) {
  const drv::CUresult result = driver_.cuDevicePrimaryCtxRetain(&context_, device_);
  if (result != drv::CUDA_SUCCESS) {
    fail(VYRE_ERR_NO_DEVICE, "cuDevicePrimaryCtxRetain failed: " + driver_.describe(result),
         "check that the device is not in exclusive-process mode held by another process "
         "(nvidia-smi -q | grep 'Compute Mode') and that it is healthy");
  }
}

Context::~Context() {
  if (context_ != nullptr) driver_.cuDevicePrimaryCtxRelease(device_);
}

bool Context::bind_quietly() const noexcept {
  return driver_.cuCtxSetCurrent(context_) == drv::CUDA_SUCCESS;
}

void Context::bind() const {
  driver_.check(driver_.cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

}  // namespace vyre::cuda
