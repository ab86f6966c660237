// Which device an instance runs on: CreateOptions::device_ordinal when set, else the environment
// variable VYRE_CUDA_DEVICE_ORDINAL, else 0. The variable is validated before the driver is touched.
#pragma once

#include <optional>

namespace vyre::cuda {

inline constexpr const char* kDeviceOrdinalEnv = "VYRE_CUDA_DEVICE_ORDINAL";

// The ordinal `text` names: nullopt when text is null or empty; throws vyre::Error
// (VYRE_ERR_INVALID_ARGUMENT) unless it is a decimal integer in [0, 2^31).
std::optional<int> parse_device_ordinal(const char* text);

// The ordinal to open: `requested` (from CreateOptions) when set, else parse_device_ordinal(env_text),
// else 0. Throws VYRE_ERR_INVALID_ARGUMENT for a negative request or a malformed variable.
int choose_device_ordinal(std::optional<int> requested, const char* env_text);

// Throws VYRE_ERR_NO_DEVICE when `ordinal` does not name one of `visible` devices.
void check_device_visible(int ordinal, int visible);

}  // namespace vyre::cuda
