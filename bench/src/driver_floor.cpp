#include "driver_floor.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <stdexcept>

#include "clock.hpp"

namespace vyre::bench {
namespace {

// The few driver API types and entry points the floor needs (the ABI of cuda.h, declared here so
// that vyre-bench needs no CUDA headers, like the cuda plugin).
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using Handle = void*;  // CUcontext, CUmodule, CUfunction, CUstream: pointers to opaque structs

struct Driver {
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
  CUresult (*cuStreamCreate)(Handle*, unsigned) = nullptr;
  CUresult (*cuStreamDestroy_v2)(Handle) = nullptr;
  CUresult (*cuStreamSynchronize)(Handle) = nullptr;
  CUresult (*cuLaunchKernel)(Handle, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             Handle, void**, void**) = nullptr;
};

constexpr unsigned kStreamNonBlocking = 1;  // CU_STREAM_NON_BLOCKING

// The tiny kernel of P3 (and of bench/floor/driver_floor.cpp): out[i] = a[i] ^ b[i] for i < n.
const char* const kXorPtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry xor_floor(.param .u64 a, .param .u64 b, .param .u64 o, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd0, [a];
  ld.param.u64 %rd1, [b];
  ld.param.u64 %rd2, [o];
  ld.param.u32 %r0, [n];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  setp.ge.u32 %p0, %r4, %r0;
  @%p0 bra DONE;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd0, %rd3;
  add.s64 %rd5, %rd1, %rd3;
  add.s64 %rd6, %rd2, %rd3;
  ld.global.b32 %r5, [%rd4];
  ld.global.b32 %r6, [%rd5];
  xor.b32 %r7, %r5, %r6;
  st.global.b32 [%rd6], %r7;
DONE:
  ret;
}
)";

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(CUresult r, const char* call) {
  if (r != 0) throw Failure(std::string(call) + " failed (CUresult " + std::to_string(r) + ")");
}

template <class Fn>
void resolve(void* library, Fn& fn, const char* name) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  if (fn == nullptr) throw Failure(std::string("the driver library has no ") + name);
}

Driver open_driver() {
  const char* path = std::getenv("VYRE_CUDA_DRIVER_LIBRARY");
  void* library = dlopen(path != nullptr && *path != '\0' ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) throw Failure("no CUDA driver library (libcuda.so.1) here");
  Driver d;
#define VYRE_RESOLVE(name) resolve(library, d.name, #name)
  VYRE_RESOLVE(cuInit); VYRE_RESOLVE(cuDeviceGet); VYRE_RESOLVE(cuDevicePrimaryCtxRetain);
  VYRE_RESOLVE(cuDevicePrimaryCtxRelease_v2); VYRE_RESOLVE(cuCtxPushCurrent_v2); VYRE_RESOLVE(cuCtxPopCurrent_v2);
  VYRE_RESOLVE(cuModuleLoadData); VYRE_RESOLVE(cuModuleGetFunction); VYRE_RESOLVE(cuModuleUnload);
  VYRE_RESOLVE(cuMemAlloc_v2); VYRE_RESOLVE(cuMemFree_v2); VYRE_RESOLVE(cuStreamCreate);
  VYRE_RESOLVE(cuStreamDestroy_v2); VYRE_RESOLVE(cuStreamSynchronize); VYRE_RESOLVE(cuLaunchKernel);
#undef VYRE_RESOLVE
  return d;  // the library stays loaded (the cuda plugin has it open too)
}

// The module, buffers and stream of the floor, released in reverse order on every path.
class FloorKernel {
 public:
  FloorKernel(const Driver& d, int ordinal) : d_(d) {
    check(d.cuInit(0), "cuInit");
    check(d.cuDeviceGet(&device_, ordinal), "cuDeviceGet");
    check(d.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
    retained_ = true;
    check(d.cuCtxPushCurrent_v2(context_), "cuCtxPushCurrent");
    pushed_ = true;
    check(d.cuModuleLoadData(&module_, kXorPtx), "cuModuleLoadData");
    check(d.cuModuleGetFunction(&function_, module_, "xor_floor"), "cuModuleGetFunction");
    for (CUdeviceptr* p : {&a_, &b_, &o_}) check(d.cuMemAlloc_v2(p, n_ * 4), "cuMemAlloc");
    check(d.cuStreamCreate(&stream_, kStreamNonBlocking), "cuStreamCreate");
  }
  ~FloorKernel() {
    if (stream_ != nullptr) d_.cuStreamDestroy_v2(stream_);
    for (CUdeviceptr p : {o_, b_, a_})
      if (p != 0) d_.cuMemFree_v2(p);
    if (module_ != nullptr) d_.cuModuleUnload(module_);
    Handle popped = nullptr;
    if (pushed_) d_.cuCtxPopCurrent_v2(&popped);
    if (retained_) d_.cuDevicePrimaryCtxRelease_v2(device_);
  }
  FloorKernel(const FloorKernel&) = delete;
  FloorKernel& operator=(const FloorKernel&) = delete;

  void launch() {
    check(d_.cuLaunchKernel(function_, 4, 1, 1, 256, 1, 1, 0, stream_, args_, nullptr), "cuLaunchKernel");
  }
  void finish() { check(d_.cuStreamSynchronize(stream_), "cuStreamSynchronize"); }

 private:
  const Driver& d_;
  CUdevice device_ = 0;
  Handle context_ = nullptr, module_ = nullptr, function_ = nullptr, stream_ = nullptr;
  bool retained_ = false, pushed_ = false;
  CUdeviceptr a_ = 0, b_ = 0, o_ = 0;
  unsigned n_ = 1024;
  void* args_[4] = {&a_, &b_, &o_, &n_};
};

}  // namespace

DriverFloor measure_driver_launch_floor(int ordinal, std::uint64_t count, std::uint32_t warmup,
                                        std::uint32_t reps) {
  DriverFloor floor;
  try {
    static const Driver driver = open_driver();
    FloorKernel kernel(driver, ordinal);
    const double per = 1.0 / static_cast<double>(count);
    for (std::uint32_t r = 0; r < warmup + reps; ++r) {
      const std::uint64_t start = now_ns();
      for (std::uint64_t k = 0; k < count; ++k) kernel.launch();
      const std::uint64_t enqueued = now_ns();
      kernel.finish();
      const std::uint64_t finished = now_ns();
      if (r < warmup) continue;
      floor.enqueue_ns.push_back(static_cast<double>(enqueued - start) * per);
      floor.total_ns.push_back(static_cast<double>(finished - start) * per);
    }
  } catch (const Failure& e) {
    floor = DriverFloor{};
    floor.unavailable = e.what();
  }
  return floor;
}

}  // namespace vyre::bench
