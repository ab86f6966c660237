// The struct_size rules of backend_abi.h, in one place for both sides of the ABI (the plugin kit
// and the host wrapper):
//   - in-structs: read only the fields the writer's struct_size covers, zero the rest; a
//     struct_size below min_size<T>() is VYRE_ERR_ABI;
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

// The smallest struct_size a reader accepts. The numbers are the
// VYRE_*_V1_0_SIZE macros of backend_abi.h (for structs 1.1 added: their V1_1 size).
template <class T>
constexpr std::size_t min_size();

#define VYRE_ABI_MIN_SIZE(type, size) \
  template <>                         \
  constexpr std::size_t min_size<type>() { return size; }

VYRE_ABI_MIN_SIZE(vyre_error, VYRE_ERROR_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_host_info, VYRE_HOST_INFO_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_backend_info, VYRE_BACKEND_INFO_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_create_options, VYRE_CREATE_OPTIONS_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_device_profile, VYRE_DEVICE_PROFILE_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_dispatch_config, VYRE_DISPATCH_CONFIG_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_host_input, VYRE_HOST_INPUT_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_host_output, VYRE_HOST_OUTPUT_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_dispatch_args, VYRE_DISPATCH_ARGS_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_timing, VYRE_TIMING_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_resident_write, VYRE_RESIDENT_WRITE_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_resident_read, VYRE_RESIDENT_READ_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_binding, VYRE_BINDING_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_resident_dispatch_args, VYRE_RESIDENT_DISPATCH_ARGS_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_sequence_step, VYRE_SEQUENCE_STEP_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_sequence_args, VYRE_SEQUENCE_ARGS_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_pipeline_args, VYRE_PIPELINE_ARGS_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_pipeline_dispatch_args, VYRE_PIPELINE_DISPATCH_ARGS_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_aot_args, VYRE_AOT_ARGS_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_aot_file, VYRE_AOT_FILE_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_aot_output, VYRE_AOT_OUTPUT_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_metric, VYRE_METRIC_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_backend_fns, VYRE_BACKEND_FNS_V1_0_SIZE)
VYRE_ABI_MIN_SIZE(vyre_external_memory, VYRE_EXTERNAL_MEMORY_V1_1_SIZE)
VYRE_ABI_MIN_SIZE(vyre_memory_export, VYRE_MEMORY_EXPORT_V1_1_SIZE)
VYRE_ABI_MIN_SIZE(vyre_extension, VYRE_EXTENSION_V1_1_SIZE)
VYRE_ABI_MIN_SIZE(vyre_collective_args, VYRE_COLLECTIVE_ARGS_V1_1_SIZE)

#undef VYRE_ABI_MIN_SIZE

// The struct_size field of whatever `p` points at (every ABI struct starts with it).
inline std::size_t struct_size_of(const void* p) {
  std::size_t size = 0;
  std::memcpy(&size, p, sizeof size);
  return size;
}

// Throw VYRE_ERR_ABI when `size` is below min_size<T>().
template <class T>
void require_min_size(std::size_t size, std::string_view what) {
  if (size >= min_size<T>()) return;
  throw Error::make(VYRE_ERR_ABI,
                    std::string(what) + " has struct_size " + std::to_string(size) +
                        ", below the smallest size ABI 1.x accepts, " + std::to_string(min_size<T>()),
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
  require_min_size<T>(size, what);
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
  require_min_size<T>(struct_size_of(p), what);
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
    require_min_size<T>(stride_, what);
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
