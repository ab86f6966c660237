#include "driver_kernel.hpp"

#include "xor_ptx.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <string>

namespace vyre::bench {
namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using Handle = void*;  // CUcontext, CUmodule, CUfunction, CUstream: pointers to opaque structs

constexpr unsigned kStreamNonBlocking = 1;  // CU_STREAM_NON_BLOCKING

void check(CUresult r, const char* call) {
  if (r != 0) throw DriverFailure(std::string(call) + " failed (CUresult " + std::to_string(r) + ")");
}

template <class Fn>
void resolve(void* library, Fn& fn, const char* name) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  if (fn == nullptr) throw DriverFailure(std::string("the driver library has no ") + name);
}

}  // namespace

struct DriverApi {
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(Handle*, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease_v2)(CUdevice) = nullptr;
  CUresult (*cuCtxPushCurrent_v2)(Handle) = nullptr;
  CUresult (*cuCtxPopCurrent_v2)(Handle*) = nullptr;
  CUresult (*cuModuleLoadData)(Handle*, const void*) = nullptr;
  CUresult (*cuModuleGetFunction)(Handle*, Handle, const char*) = nullptr;
  CUresult (*cuModuleUnload)(Handle) = nullptr;
  CUresult (*cuMemAlloc_v2)(CUdeviceptr*, std::size_t) = nullptr;
  CUresult (*cuMemFree_v2)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD_v2)(CUdeviceptr, const void*, std::size_t) = nullptr;
  CUresult (*cuMemcpyDtoH_v2)(void*, CUdeviceptr, std::size_t) = nullptr;
  CUresult (*cuStreamCreate)(Handle*, unsigned) = nullptr;
  CUresult (*cuStreamDestroy_v2)(Handle) = nullptr;
  CUresult (*cuStreamSynchronize)(Handle) = nullptr;
  CUresult (*cuLaunchKernel)(Handle, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             Handle, void**, void**) = nullptr;
};

namespace {

DriverApi open_library() {
  const char* path = std::getenv("VYRE_CUDA_DRIVER_LIBRARY");
  void* library = dlopen(path != nullptr && *path != '\0' ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) throw DriverFailure("no CUDA driver library (libcuda.so.1) here");
  DriverApi d;
#define VYRE_RESOLVE(name) resolve(library, d.name, #name)
  VYRE_RESOLVE(cuInit); VYRE_RESOLVE(cuDeviceGet); VYRE_RESOLVE(cuDevicePrimaryCtxRetain);
  VYRE_RESOLVE(cuDevicePrimaryCtxRelease_v2); VYRE_RESOLVE(cuCtxPushCurrent_v2); VYRE_RESOLVE(cuCtxPopCurrent_v2);
  VYRE_RESOLVE(cuModuleLoadData); VYRE_RESOLVE(cuModuleGetFunction); VYRE_RESOLVE(cuModuleUnload);
  VYRE_RESOLVE(cuMemAlloc_v2); VYRE_RESOLVE(cuMemFree_v2); VYRE_RESOLVE(cuMemcpyHtoD_v2);
  VYRE_RESOLVE(cuMemcpyDtoH_v2); VYRE_RESOLVE(cuStreamCreate); VYRE_RESOLVE(cuStreamDestroy_v2);
  VYRE_RESOLVE(cuStreamSynchronize); VYRE_RESOLVE(cuLaunchKernel);
#undef VYRE_RESOLVE
  return d;  // the library stays loaded for the process's life
}

}  // namespace

const DriverApi& open_driver_api() {
  static const DriverApi driver = open_library();  // a failure throws, and the next call retries
  return driver;
}

DriverXorKernel::DriverXorKernel(const DriverApi& d, int ordinal) : d_(d) {
  try {
    check(d.cuInit(0), "cuInit");
    check(d.cuDeviceGet(&device_, ordinal), "cuDeviceGet");
    check(d.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
    retained_ = true;
    check(d.cuCtxPushCurrent_v2(context_), "cuCtxPushCurrent");
    pushed_ = true;
    check(d.cuModuleLoadData(&module_, kXorPtx), "cuModuleLoadData");
    check(d.cuModuleGetFunction(&function_, module_, kXorPtxEntry), "cuModuleGetFunction");
    for (CUdeviceptr* p : {&a_, &b_, &o_}) check(d.cuMemAlloc_v2(p, std::size_t{kElements} * 4), "cuMemAlloc");
    check(d.cuStreamCreate(&stream_, kStreamNonBlocking), "cuStreamCreate");
  } catch (...) {
    release();  // what was made so far; the destructor does not run for a throwing constructor
    throw;
  }
}

DriverXorKernel::~DriverXorKernel() { release(); }

void DriverXorKernel::release() {
  if (stream_ != nullptr) d_.cuStreamDestroy_v2(stream_);
  for (CUdeviceptr p : {o_, b_, a_})
    if (p != 0) d_.cuMemFree_v2(p);
  if (module_ != nullptr) d_.cuModuleUnload(module_);
  Handle popped = nullptr;
  if (pushed_) d_.cuCtxPopCurrent_v2(&popped);
  if (retained_) d_.cuDevicePrimaryCtxRelease_v2(device_);
  stream_ = module_ = nullptr;
  a_ = b_ = o_ = 0;
  pushed_ = retained_ = false;
}

void DriverXorKernel::upload(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  if (a.size() != kElements || b.size() != kElements) throw DriverFailure("upload needs 1024 words per input");
  check(d_.cuMemcpyHtoD_v2(a_, a.data(), a.size() * 4), "cuMemcpyHtoD");
  check(d_.cuMemcpyHtoD_v2(b_, b.data(), b.size() * 4), "cuMemcpyHtoD");
}

void DriverXorKernel::launch() {
  check(d_.cuLaunchKernel(function_, 4, 1, 1, 256, 1, 1, 0, stream_, args_, nullptr), "cuLaunchKernel");
}

void DriverXorKernel::finish() { check(d_.cuStreamSynchronize(stream_), "cuStreamSynchronize"); }

std::vector<std::uint32_t> DriverXorKernel::download() {
  std::vector<std::uint32_t> out(kElements);
  check(d_.cuMemcpyDtoH_v2(out.data(), o_, out.size() * 4), "cuMemcpyDtoH");
  return out;
}

}  // namespace vyre::bench
