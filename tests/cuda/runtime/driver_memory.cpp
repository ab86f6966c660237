#include "driver_memory.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <stdexcept>

#include "runtime/driver.hpp"

namespace vyre::cudatest {
namespace {

namespace drv = vyre::cuda::drv;

// The few entry points a caller needs to own device memory.
struct Entries {
  drv::PFN_cuDevicePrimaryCtxRetain retain = nullptr;
  drv::PFN_cuDevicePrimaryCtxRelease release = nullptr;
  drv::PFN_cuCtxSetCurrent set_current = nullptr;
  drv::PFN_cuMemAlloc alloc = nullptr;
  drv::PFN_cuMemFree free = nullptr;
  drv::PFN_cuStreamCreate stream_create = nullptr;
  drv::PFN_cuStreamDestroy stream_destroy = nullptr;
  drv::PFN_cuStreamSynchronize stream_synchronize = nullptr;
  drv::PFN_cuStreamBeginCapture begin_capture = nullptr;
  drv::PFN_cuStreamEndCapture end_capture = nullptr;
  drv::PFN_cuGraphDestroy graph_destroy = nullptr;
};

void check(drv::CUresult result, const char* call) {
  if (result != drv::CUDA_SUCCESS) throw std::runtime_error(std::string(call) + " failed: " + std::to_string(result));
}

template <class Fn>
void resolve(drv::PFN_cuGetProcAddress get_proc, const char* name, Fn& out) {
  void* fn = nullptr;
  drv::CUdriverProcAddressQueryResult status = drv::CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  check(get_proc(name, &fn, drv::kDriverApiVersion, drv::CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status), name);
  if (fn == nullptr || status != drv::CU_GET_PROC_ADDRESS_SUCCESS) throw std::runtime_error(std::string("no ") + name);
  out = reinterpret_cast<Fn>(fn);
}

// Opened once per process and kept loaded (as the plugin keeps its driver).
const Entries& entries() {
  static const Entries e = [] {
    const char* path = std::getenv(vyre::cuda::kDriverLibraryEnv);
    void* library = dlopen(path != nullptr ? path : vyre::cuda::kDefaultDriverLibrary, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) throw std::runtime_error(std::string("dlopen: ") + dlerror());
    auto init = reinterpret_cast<drv::PFN_cuInit>(dlsym(library, "cuInit"));
    auto get_proc = reinterpret_cast<drv::PFN_cuGetProcAddress>(dlsym(library, "cuGetProcAddress_v2"));
    if (init == nullptr || get_proc == nullptr) throw std::runtime_error("the driver lacks cuInit or cuGetProcAddress_v2");
    check(init(0), "cuInit");
    Entries out;
    resolve(get_proc, "cuDevicePrimaryCtxRetain", out.retain);
    resolve(get_proc, "cuDevicePrimaryCtxRelease", out.release);
    resolve(get_proc, "cuCtxSetCurrent", out.set_current);
    resolve(get_proc, "cuMemAlloc", out.alloc);
    resolve(get_proc, "cuMemFree", out.free);
    resolve(get_proc, "cuStreamCreate", out.stream_create);
    resolve(get_proc, "cuStreamDestroy", out.stream_destroy);
    resolve(get_proc, "cuStreamSynchronize", out.stream_synchronize);
    resolve(get_proc, "cuStreamBeginCapture", out.begin_capture);
    resolve(get_proc, "cuStreamEndCapture", out.end_capture);
    resolve(get_proc, "cuGraphDestroy", out.graph_destroy);
    return out;
  }();
  return e;
}

void make_current() {
  const Entries& e = entries();
  drv::CUcontext context = nullptr;
  check(e.retain(&context, 0), "cuDevicePrimaryCtxRetain");
  check(e.set_current(context), "cuCtxSetCurrent");
}

}  // namespace

DriverMemory::DriverMemory(std::uint64_t bytes) : bytes_(bytes) {
  make_current();
  drv::CUdeviceptr address = 0;
  const drv::CUresult result = entries().alloc(&address, bytes);
  if (result != drv::CUDA_SUCCESS) {
    entries().release(0);
    check(result, "cuMemAlloc");
  }
  address_ = address;
}

DriverMemory::~DriverMemory() {
  const Entries& e = entries();
  drv::CUcontext context = nullptr;
  if (e.retain(&context, 0) == drv::CUDA_SUCCESS) {  // current again on this thread, then balanced
    e.set_current(context);
    e.free(address_);
    e.release(0);
  }
  e.release(0);
}

DriverStream::DriverStream() {
  make_current();
  drv::CUstream stream = nullptr;
  const drv::CUresult result = entries().stream_create(&stream, drv::CU_STREAM_NON_BLOCKING);
  if (result != drv::CUDA_SUCCESS) {
    entries().release(0);
    check(result, "cuStreamCreate");
  }
  handle_ = reinterpret_cast<std::uintptr_t>(stream);
}

void DriverStream::synchronize() const {
  make_current();
  const drv::CUresult result = entries().stream_synchronize(reinterpret_cast<drv::CUstream>(handle_));
  entries().release(0);
  check(result, "cuStreamSynchronize");
}

void DriverStream::begin_capture() const {
  make_current();
  const drv::CUresult result =
      entries().begin_capture(reinterpret_cast<drv::CUstream>(handle_), drv::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  entries().release(0);
  check(result, "cuStreamBeginCapture");
}

void DriverStream::end_capture() const {
  make_current();
  drv::CUgraph graph = nullptr;
  const drv::CUresult result = entries().end_capture(reinterpret_cast<drv::CUstream>(handle_), &graph);
  if (graph != nullptr) entries().graph_destroy(graph);
  entries().release(0);
  check(result, "cuStreamEndCapture");
}

DriverStream::~DriverStream() {
  const Entries& e = entries();
  drv::CUcontext context = nullptr;
  if (e.retain(&context, 0) == drv::CUDA_SUCCESS) {
    e.set_current(context);
    const auto stream = reinterpret_cast<drv::CUstream>(handle_);
    e.stream_synchronize(stream);
    e.stream_destroy(stream);
    e.release(0);
  }
  e.release(0);
}

}  // namespace vyre::cudatest
