// The struct_size rules of backend_abi.h, in one place for both sides of the ABI (the plugin kit
// and the host wrapper):
//   - in-structs: read only the fields the writer's struct_size covers, zero the rest; a
//     struct_size below the 1.0 size is VYRE_ERR_ABI;
//   - out-structs: write at most the caller's struct_size bytes and set struct_size to the bytes
//     written;
//   - arrays: strided by the struct_size of their first element.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "vyre/backend_abi.h"
#include "vyre/error.hpp"

namespace vyre::abi {

// The size of a struct in ABI 1.0: the end of its last 1.0 field (trailing padding excluded, so a
// writer that sets struct_size to exactly the 1.0 fields is accepted).
template <class T>
constexpr std::size_t v1_size();

#define VYRE_ABI_V1_SIZE(type, last)                                             \
  template <>                                                                    \
  constexpr std::size_t v1_size<type>() {                                        \
    return offsetof(type, last) + sizeof(static_cast<type*>(nullptr)->last);     \
  }

VYRE_ABI_V1_SIZE(vyre_error, message)
VYRE_ABI_V1_SIZE(vyre_host_info, log_user)
VYRE_ABI_V1_SIZE(vyre_backend_info, failure)
VYRE_ABI_V1_SIZE(vyre_create_options, memory_budget_bytes)
VYRE_ABI_V1_SIZE(vyre_device_profile, cooperative_launch)
VYRE_ABI_V1_SIZE(vyre_dispatch_config, workgroup)
VYRE_ABI_V1_SIZE(vyre_host_input, byte_len)
VYRE_ABI_V1_SIZE(vyre_host_output, byte_len)
VYRE_ABI_V1_SIZE(vyre_dispatch_args, output_count)
VYRE_ABI_V1_SIZE(vyre_timing, has_device_ns)
VYRE_ABI_V1_SIZE(vyre_resident_write, byte_len)
VYRE_ABI_V1_SIZE(vyre_resident_read, byte_len)
VYRE_ABI_V1_SIZE(vyre_binding, host_byte_len)
VYRE_ABI_V1_SIZE(vyre_resident_dispatch_args, binding_count)
VYRE_ABI_V1_SIZE(vyre_sequence_step, binding_count)
VYRE_ABI_V1_SIZE(vyre_sequence_args, read_count)
VYRE_ABI_V1_SIZE(vyre_pipeline_args, flags)
VYRE_ABI_V1_SIZE(vyre_pipeline_dispatch_args, output_count)
VYRE_ABI_V1_SIZE(vyre_aot_args, weights_byte_len)
VYRE_ABI_V1_SIZE(vyre_aot_file, byte_len)
VYRE_ABI_V1_SIZE(vyre_aot_output, file_count)
VYRE_ABI_V1_SIZE(vyre_metric, value)
VYRE_ABI_V1_SIZE(vyre_backend_fns, metrics_reset)

#undef VYRE_ABI_V1_SIZE

static_assert(v1_size<vyre_error>() == VYRE_ERROR_V1_SIZE);
static_assert(v1_size<vyre_host_info>() == VYRE_HOST_INFO_V1_SIZE);
static_assert(v1_size<vyre_backend_info>() == VYRE_BACKEND_INFO_V1_SIZE);
static_assert(v1_size<vyre_backend_fns>() == VYRE_BACKEND_FNS_V1_SIZE);

// The struct_size field of whatever `p` points at (every ABI struct starts with it).
inline std::size_t struct_size_of(const void* p) {
  std::size_t size = 0;
  std::memcpy(&size, p, sizeof size);
  return size;
}

// Throw VYRE_ERR_ABI when `size` is below the 1.0 size of T.
template <class T>
void require_v1_size(std::size_t size, std::string_view what) {
  if (size >= v1_size<T>()) return;
  throw Error::make(VYRE_ERR_ABI,
                    std::string(what) + " has struct_size " + std::to_string(size) +
                        ", below the ABI 1.0 size " + std::to_string(v1_size<T>()),
                    "set struct_size to sizeof of the struct from the vyre/backend_abi.h you build "
                    "against (ABI 1.x)");
}

// Copy an in-struct: the fields its struct_size covers, the rest zero. NULL is
// VYRE_ERR_INVALID_ARGUMENT naming `what`.
template <class T>
T read_struct(const T* p, std::string_view what) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (p == nullptr)
    throw Error::make(VYRE_ERR_INVALID_ARGUMENT, std::string(what) + " is NULL",
                      "pass a pointer to a filled struct");
  const std::size_t size = struct_size_of(p);
  require_v1_size<T>(size, what);
  T out{};
  std::memcpy(&out, p, std::min(size, sizeof(T)));
  out.struct_size = sizeof(T);
  return out;
}

// Check an out-struct the caller allocated: not NULL and large enough for 1.0.
template <class T>
void check_out_struct(const T* p, std::string_view what) {
  if (p == nullptr)
    throw Error::make(VYRE_ERR_INVALID_ARGUMENT, std::string(what) + " is NULL",
                      "pass a struct with struct_size set to its size");
  require_v1_size<T>(struct_size_of(p), what);
}

// Write `full` into the caller's out-struct, truncated to the caller's struct_size; struct_size
// becomes the bytes written. Call check_out_struct first.
template <class T>
void write_out_struct(const T& full, T* dst) {
  static_assert(std::is_trivially_copyable_v<T>);
  const std::size_t size = std::min(struct_size_of(dst), sizeof(T));
  T copy = full;
  copy.struct_size = size;
  std::memcpy(static_cast<void*>(dst), &copy, size);
}

// A read-only view of an ABI array strided by its first element's struct_size.
template <class T>
class StridedArray {
 public:
  // `count` == 0 accepts a NULL `data`. Otherwise NULL data, or a first element below the 1.0
  // size, throws.
  StridedArray(const T* data, std::size_t count, std::string_view what)
      : base_(reinterpret_cast<const unsigned char*>(data)), count_(count) {
    if (count == 0) return;
    if (data == nullptr)
      throw Error::make(VYRE_ERR_INVALID_ARGUMENT,
                        std::string(what) + " is NULL but its count is " + std::to_string(count),
                        "pass the array, or a count of 0");
    stride_ = struct_size_of(data);
    require_v1_size<T>(stride_, what);
  }

  std::size_t size() const { return count_; }
  std::size_t stride() const { return stride_; }

  // Element i with the covered fields copied and the rest zero.
  T operator[](std::size_t i) const {
    T out{};
    std::memcpy(&out, base_ + i * stride_, std::min(stride_, sizeof(T)));
    out.struct_size = sizeof(T);
    return out;
  }

  // The address of element i inside the caller's array (for writing back out-fields).
  const T* address(std::size_t i) const { return reinterpret_cast<const T*>(base_ + i * stride_); }

 private:
  const unsigned char* base_ = nullptr;
  std::size_t count_ = 0;
  std::size_t stride_ = 0;
};

}  // namespace vyre::abi
