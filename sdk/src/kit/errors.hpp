// Turning C++ failures into vyre_error objects at the C boundary: every kit entry point runs its
// body through `guard`, so no exception ever crosses the ABI.
#pragma once

#include <exception>
#include <new>
#include <string_view>

#include "vyre/backend_abi.h"
#include "vyre/error.hpp"

namespace vyre::kit::detail {

// Store a new error object in *error (when error is not NULL) and return `code`.
vyre_status report(vyre_error** error, vyre_status code, std::string_view message) noexcept;

// The status of the exception in flight, reported into *error. Call only inside a catch block.
vyre_status report_current_exception(vyre_error** error) noexcept;

// Release an error made by `report` (unknown pointers and NULL are ignored).
void release_error(vyre_error* error) noexcept;

// Run `body` (returning void); VYRE_OK, or the status of whatever it threw.
template <class Body>
vyre_status guard(vyre_error** error, Body&& body) noexcept {
  if (error != nullptr) *error = nullptr;
  try {
    body();
    return VYRE_OK;
  } catch (...) {
    return report_current_exception(error);
  }
}

}  // namespace vyre::kit::detail
