// What every twin entry point shares (twin_abi.h): argument checks, device buffers, the reset
// uploads, warm-up, event timing, the copy back, and errors as messages (no exception leaves).
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <exception>

#include "twin_abi.h"

#define VYRE_TWIN_EXPORT extern "C" __attribute__((visibility("default")))

namespace twin {

constexpr unsigned kFullMask = 0xFFFFFFFFu;

struct Failure {
  const char* what;
  cudaError_t code;
  const char* detail;
};

inline void check(cudaError_t code, const char* what) {
  if (code != cudaSuccess) throw Failure{what, code, nullptr};
}

inline void require(bool ok, const char* detail) {
  if (!ok) throw Failure{"argument check", cudaSuccess, detail};
}

// Device pointer `i` as T*.
template <class T>
T* buffer(void* const* device, unsigned i) {
  return static_cast<T*>(device[i]);
}

// Runs `launch(device_pointers, grid, block, stream)` as twin_abi.h describes.
template <class Launch>
int run(vyre_twin_args* args, unsigned buffer_count, Launch launch) {
  if (args == nullptr) return 1;
  void* device[VYRE_TWIN_MAX_BUFFERS] = {};
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  int rc = 0;
  try {
    args->error[0] = '\0';
    require(args->struct_size >= sizeof(vyre_twin_args) && args->abi_version == VYRE_TWIN_ABI_VERSION,
            "the caller speaks another twin ABI. Fix: rebuild vyre-bench and libvyre_kernel_twins.so from one tree.");
    require(args->buffer_count == buffer_count,
            "the buffer count differs from the kernel's. Fix: rebuild vyre-bench and libvyre_kernel_twins.so from one tree.");
    require(args->reps == 0 || args->sample_ms != nullptr, "sample_ms is null. Fix: pass reps entries.");
    check(cudaSetDevice(args->device), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    for (unsigned b = 0; b < buffer_count; ++b) {
      const vyre_twin_buffer& buf = args->buffers[b];
      check(cudaMalloc(&device[b], buf.bytes == 0 ? 1 : buf.bytes), "cudaMalloc");
      check(cudaMemcpy(device[b], buf.host, buf.bytes, cudaMemcpyHostToDevice), "cudaMemcpy (upload)");
    }
    const dim3 grid(args->grid[0], args->grid[1], args->grid[2]);
    const dim3 block(args->block[0], args->block[1], args->block[2]);
    auto reset = [&] {
      for (unsigned b = 0; b < buffer_count; ++b)
        if (args->buffers[b].reset)
          check(cudaMemcpyAsync(device[b], args->buffers[b].host, args->buffers[b].bytes, cudaMemcpyHostToDevice,
                                stream),
                "cudaMemcpyAsync (reset)");
      check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (reset)");
    };
    for (unsigned w = 0; w < args->warmup; ++w) {
      reset();
      launch(device, grid, block, stream);
      check(cudaGetLastError(), "kernel launch (warm-up)");
    }
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (warm-up)");
    for (unsigned r = 0; r < args->reps; ++r) {
      reset();
      check(cudaEventRecord(start, stream), "cudaEventRecord");
      launch(device, grid, block, stream);
      check(cudaGetLastError(), "kernel launch");
      check(cudaEventRecord(stop, stream), "cudaEventRecord");
      check(cudaEventSynchronize(stop), "cudaEventSynchronize (kernel)");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      args->sample_ms[r] = ms;
    }
    for (unsigned b = 0; b < buffer_count; ++b)
      if (args->buffers[b].output)
        check(cudaMemcpy(args->buffers[b].host, device[b], args->buffers[b].bytes, cudaMemcpyDeviceToHost),
              "cudaMemcpy (download)");
  } catch (const Failure& f) {
    if (f.detail != nullptr)
      std::snprintf(args->error, sizeof args->error, "%s", f.detail);
    else
      std::snprintf(args->error, sizeof args->error,
                    "%s failed: %s. Fix: check that a CUDA device is visible (nvidia-smi) and has the memory "
                    "for this case.",
                    f.what, cudaGetErrorString(f.code));
    rc = 1;
  } catch (...) {
    std::snprintf(args->error, sizeof args->error,
                  "unexpected C++ exception in the twin. Fix: report it with the case id.");
    rc = 1;
  }
  for (void* p : device)
    if (p != nullptr) cudaFree(p);
  if (start != nullptr) cudaEventDestroy(start);
  if (stop != nullptr) cudaEventDestroy(stop);
  if (stream != nullptr) cudaStreamDestroy(stream);
  return rc;
}

}  // namespace twin
