// The tiny xor kernel of P3 and C1 run straight on the CUDA driver API, without vyre: the driver
// library opened at run time (libcuda.so.1, or VYRE_CUDA_DRIVER_LIBRARY as for the cuda plugin), a
// 1024-element u32 `out = a ^ b` module on the primary context of one device, launched as 4 blocks
// of 256 on a non-blocking stream. Used by the driver floor (driver_floor.hpp) and by the C1 child
// program (bench/floor/driver_run.cpp). Declares the few driver types it needs itself, so nothing
// here needs the CUDA headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace vyre::bench {

struct DriverFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct DriverApi;

// The driver, opened once per process. Throws DriverFailure when it cannot be opened or lacks an
// entry point.
const DriverApi& open_driver_api();

// The module, buffers and stream of the xor kernel, released on every path. Throws DriverFailure.
// Thread-compatible.
class DriverXorKernel {
 public:
  static constexpr std::uint32_t kElements = 1024;

  DriverXorKernel(const DriverApi& driver, int ordinal);
  ~DriverXorKernel();
  DriverXorKernel(const DriverXorKernel&) = delete;
  DriverXorKernel& operator=(const DriverXorKernel&) = delete;

  void upload(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b);  // kElements each
  void launch();  // enqueue only
  void finish();  // waits for the stream
  std::vector<std::uint32_t> download();

 private:
  using Handle = void*;
  void release();
  const DriverApi& d_;
  int device_ = 0;
  Handle context_ = nullptr, module_ = nullptr, function_ = nullptr, stream_ = nullptr;
  bool retained_ = false, pushed_ = false;
  unsigned long long a_ = 0, b_ = 0, o_ = 0;
  unsigned n_ = kElements;
  void* args_[4] = {&a_, &b_, &o_, &n_};
};

}  // namespace vyre::bench
