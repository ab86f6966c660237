#include "runtime/device_select.hpp"

#include <charconv>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "vyre/error.hpp"

namespace vyre::cuda {

std::optional<int> parse_device_ordinal(const char* text) {
  if (text == nullptr || text[0] == '\0') return std::nullopt;
  const char* end = text + std::strlen(text);
  long long value = -1;
  const auto [ptr, ec] = std::from_chars(text, end, value);
  if (ec != std::errc() || ptr != end || value < 0 || value > std::numeric_limits<int>::max()) {
    fail(VYRE_ERR_INVALID_ARGUMENT,
         fmt::format("{}='{}' is not a device ordinal", kDeviceOrdinalEnv, text),
         fmt::format("set {} to a non-negative integer naming a visible CUDA device (0 is the "
                     "first; see nvidia-smi), or unset it",
                     kDeviceOrdinalEnv));
  }
  return static_cast<int>(value);
}

int choose_device_ordinal(std::optional<int> requested, const char* env_text) {
  if (requested) {
    if (*requested < 0) {
      fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("device_ordinal {} is negative", *requested),
           "pass -1 for the default device or a non-negative CUDA device ordinal");
    }
    return *requested;
  }
  return parse_device_ordinal(env_text).value_or(0);
}

void check_device_visible(int ordinal, int visible) {
  if (visible <= 0) {
    fail(VYRE_ERR_NO_DEVICE, "The CUDA driver reports no device",
         "run `nvidia-smi`, and check CUDA_VISIBLE_DEVICES and the container's GPU access");
  }
  if (ordinal >= visible) {
    fail(VYRE_ERR_NO_DEVICE,
         fmt::format("CUDA device {} does not exist: {} device(s) are visible (ordinals 0..{})",
                     ordinal, visible, visible - 1),
         fmt::format("set {} (or CreateOptions::device_ordinal) to a visible device, and check "
                     "CUDA_VISIBLE_DEVICES",
                     kDeviceOrdinalEnv));
  }
}

}  // namespace vyre::cuda
