// vyre::Error: the one exception type of the C++ side. It carries a stable numeric code (the
// VYRE_ERR_* codes of backend_abi.h) and a message that ends with an actionable "Fix: ..." sentence.
// Plugins catch it (and everything else) at the C ABI and turn it into a vyre_error.
#pragma once

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include "vyre/backend_abi.h"

namespace vyre {

class Error : public std::runtime_error {
 public:
  // `message` should already end with "Fix: ...". Prefer `Error::make` to compose one.
  Error(vyre_status code, const std::string& message) : std::runtime_error(message), code_(code) {}

  // "<problem>. Fix: <fix>" with the punctuation handled once, here.
  static Error make(vyre_status code, std::string_view problem, std::string_view fix);

  vyre_status code() const noexcept { return code_; }

 private:
  vyre_status code_;
};

// Throw Error::make(code, problem, fix).
[[noreturn]] void fail(vyre_status code, std::string_view problem, std::string_view fix);

namespace detail {
// The Errors current_exception_as_error makes (error.cpp): out of host memory; a std::system_error
// (VYRE_ERR_IO for std::ios_base::failure and std::filesystem::filesystem_error, else internal);
// any other exception (`what` null when it is not a std::exception).
Error out_of_memory_error();
Error system_error_as_error(const std::system_error& e);
Error unexpected_error(const char* what);
}  // namespace detail

// The exception being handled, as an Error with a stable code and a "Fix:" sentence, for the tools'
// outermost catch: an Error as it is; std::bad_alloc as VYRE_ERR_OUT_OF_MEMORY; std::ios_base::failure
// (basic_filebuf errors) and std::filesystem::filesystem_error as VYRE_ERR_IO; anything else as
// VYRE_ERR_INTERNAL. Call only inside a catch block. Inline, so that the rethrow runs in the
// caller's C++ runtime: a toolchain that links libstdc++ statically into each shared library gives
// each its own record of the exception being handled, and a `throw;` inside libvyre_sdk would find
// none there and terminate the process (the GPU machine's g++ does).
inline Error current_exception_as_error() {
  try {
    throw;
  } catch (const Error& e) {
    return e;
  } catch (const std::bad_alloc&) {
    return detail::out_of_memory_error();
  } catch (const std::system_error& e) {
    return detail::system_error_as_error(e);
  } catch (const std::exception& e) {
    return detail::unexpected_error(e.what());
  } catch (...) {
    return detail::unexpected_error(nullptr);
  }
}

// "invalid_argument", "out_of_memory", ... (stable names for logs and the CLI).
std::string_view status_name(vyre_status code);

}  // namespace vyre
