// The DLPack data structures (dlpack.h, versions 0.8 and 1.0; github.com/dmlc/dlpack), declared here
// with the exact layout the standard fixes, so the module needs no dlpack.h, and the capsule names
// of the Python protocol (__dlpack__ returns a PyCapsule named "dltensor" holding a DLManagedTensor*,
// or "dltensor_versioned" holding a DLManagedTensorVersioned*; the consumer renames it "used_..."
// when it takes ownership and calls the deleter when done).
#pragma once

#include <cstdint>

namespace vyre::python::dlpack {

enum DeviceType : std::int32_t { kCPU = 1, kCUDA = 2, kCUDAHost = 3, kCUDAManaged = 13 };
enum TypeCode : std::uint8_t { kInt = 0, kUInt = 1, kFloat = 2, kBfloat = 4, kBool = 6 };

struct Device {
  std::int32_t device_type;
  std::int32_t device_id;
};

struct DataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};

struct Tensor {
  void* data;
  Device device;
  std::int32_t ndim;
  DataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; null: compact row-major
  std::uint64_t byte_offset;
};

struct ManagedTensor {  // "dltensor"
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);
};

struct Version {
  std::uint32_t major;
  std::uint32_t minor;
};

inline constexpr std::uint64_t kFlagReadOnly = 1u << 0;

struct ManagedTensorVersioned {  // "dltensor_versioned"
  Version version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned* self);
  std::uint64_t flags;
  Tensor dl_tensor;
};

inline constexpr Version kVersion{1, 0};  // what this module produces and understands
inline constexpr const char* kCapsule = "dltensor";
inline constexpr const char* kCapsuleUsed = "used_dltensor";
inline constexpr const char* kCapsuleVersioned = "dltensor_versioned";
inline constexpr const char* kCapsuleVersionedUsed = "used_dltensor_versioned";

}  // namespace vyre::python::dlpack
