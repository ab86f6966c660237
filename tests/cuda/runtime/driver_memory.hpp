// Device memory (and streams) a test makes itself, as a caller of resident_import would (PyTorch, CuPy...):
// cuMemAlloc on device 0's primary context, through the driver library the cuda plugin uses
// (VYRE_CUDA_DRIVER_LIBRARY, else libcuda.so.1; the fake driver in CPU tests), opened with dlopen
// and resolved with cuGetProcAddress_v2 like the plugin does.
#pragma once

#include <cstdint>
#include <string>

namespace vyre::cudatest {

class DriverMemory {
 public:
  // `bytes` of device memory (contents undefined). Leaves device 0's primary context current on
  // the calling thread. Throws std::runtime_error naming the failed call.
  explicit DriverMemory(std::uint64_t bytes);
  ~DriverMemory();  // cuMemFree, then the primary context's release
  DriverMemory(const DriverMemory&) = delete;
  DriverMemory& operator=(const DriverMemory&) = delete;

  std::uint64_t address() const { return address_; }  // the CUdeviceptr
  std::uint64_t bytes() const { return bytes_; }

 private:
  std::uint64_t address_ = 0;
  std::uint64_t bytes_ = 0;
};

// A stream a test creates itself on device 0's primary context, as torch or CuPy would
// (cuStreamCreate, non-blocking); destroyed after a cuStreamSynchronize.
class DriverStream {
 public:
  DriverStream();
  ~DriverStream();
  DriverStream(const DriverStream&) = delete;
  DriverStream& operator=(const DriverStream&) = delete;

  std::uint64_t handle() const { return handle_; }  // the CUstream
  void synchronize() const;
  void begin_capture() const;  // a thread-local graph capture, as torch.cuda.graph begins one
  void end_capture() const;    // ends it and destroys the captured graph

 private:
  std::uint64_t handle_ = 0;
};

}  // namespace vyre::cudatest
