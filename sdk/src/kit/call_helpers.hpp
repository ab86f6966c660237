// Small helpers shared by the function-table slots.
#pragma once

#include <string>
#include <string_view>

#include "vyre/backend_abi.h"
#include "vyre/error.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::kit::detail {

inline void require_out_pointer(const void* out, std::string_view call) {
  if (out != nullptr) return;
  fail(VYRE_ERR_INVALID_ARGUMENT, std::string(call) + ": the out pointer is NULL",
       "pass where the result should go");
}

inline vyre_timing to_abi_timing(const Timing& t) {
  vyre_timing out{};
  out.struct_size = sizeof out;
  out.wall_ns = t.wall_ns;
  out.device_ns = t.device_ns;
  out.enqueue_ns = t.enqueue_ns;
  out.wait_ns = t.wait_ns;
  out.has_device_ns = t.has_device_ns ? 1 : 0;
  return out;
}

}  // namespace vyre::kit::detail
