// The driver entry points that fault injection can make fail (VYRE_CUDA_FAIL; docs/RELIABILITY.md,
// "CUDA fault injection"), as an enum and names: VYRE_CUDA_HOOKABLE_ENTRY_POINTS, the entries
// tagged hookable in driver_entry_points.hpp (which says which calls are, and why).
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "runtime/driver_entry_points.hpp"

namespace vyre::cuda::fault {

enum class Hook : std::size_t {
#define VYRE_CUDA_HOOK_ENUM(name) name,
  VYRE_CUDA_HOOKABLE_ENTRY_POINTS(VYRE_CUDA_HOOK_ENUM)
#undef VYRE_CUDA_HOOK_ENUM
};

inline constexpr std::array kHookNames{
#define VYRE_CUDA_HOOK_NAME(name) std::string_view(#name),
    VYRE_CUDA_HOOKABLE_ENTRY_POINTS(VYRE_CUDA_HOOK_NAME)
#undef VYRE_CUDA_HOOK_NAME
};
inline constexpr std::size_t kHookCount = kHookNames.size();

}  // namespace vyre::cuda::fault
