#include "group/device_list.hpp"

#include <fmt/format.h>

#include "runtime/device_info.hpp"
#include "runtime/device_select.hpp"
#include "runtime/driver.hpp"
#include "runtime/runtime.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda {

std::uint32_t visible_device_count() {
  const Driver& driver = Driver::open();
  int visible = 0;
  const drv::CUresult counted = driver.cuDeviceGetCount(&visible);
  if (counted != drv::CUDA_SUCCESS) {
    fail(VYRE_ERR_NO_DEVICE, "cuDeviceGetCount failed: " + driver.describe(counted),
         "run `nvidia-smi`, and check CUDA_VISIBLE_DEVICES and the container's GPU access");
  }
  return visible > 0 ? static_cast<std::uint32_t>(visible) : 0;
}

void describe_device(int ordinal, vyre_device_profile& out) {
  if (ordinal < 0) {
    fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("device ordinal {} is negative", ordinal),
         "pass an ordinal from 0 to the device count - 1");
  }
  check_device_visible(ordinal, static_cast<int>(visible_device_count()));
  const Driver& driver = Driver::open();
  drv::CUdevice device = 0;
  const drv::CUresult got = driver.cuDeviceGet(&device, ordinal);
  if (got != drv::CUDA_SUCCESS) {
    fail(VYRE_ERR_NO_DEVICE, fmt::format("cuDeviceGet({}) failed: {}", ordinal, driver.describe(got)),
         "check that the device is healthy (nvidia-smi)");
  }
  const DeviceInfo info = probe_device(driver, device, ordinal);
  fill_profile(info, target_for_device(info).name(), out);
}

}  // namespace vyre::cuda
