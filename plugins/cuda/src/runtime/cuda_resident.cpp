#include "runtime/cuda_resident.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "vyre/error.hpp"

namespace vyre::cuda {

CudaResident::CudaResident(std::shared_ptr<Runtime> runtime, std::uint64_t byte_len)
    : kit::DeviceBuffer(byte_len), runtime_(std::move(runtime)) {
  Runtime& rt = *runtime_;
  rt.bind();
  rt.reserve_resident(byte_len);
  StreamLease stream;
  try {
    memory_ = rt.device_memory().acquire(byte_len);
    if (byte_len != 0) {
      EventRef fence = rt.events().acquire();
      stream = rt.streams().acquire();
      const Driver& driver = rt.driver();
      driver.check(driver.cuMemsetD8Async(memory_.address(), 0, byte_len, stream.get()),
                   "cuMemsetD8Async(resident)");
      Telemetry::add(rt.telemetry().memset_operations);
      driver.check(driver.cuEventRecord(fence->get(), stream.get()), "cuEventRecord(resident)");
      last = std::move(fence);
      last_stream = stream.get();
    }
  } catch (...) {
    rt.drain(stream.get());  // a queued memset must finish before the memory serves anyone else
    memory_ = Block();
    rt.release_resident(byte_len);
    throw;
  }
  Telemetry::add(rt.telemetry().resident_allocations);
}

CudaResident::CudaResident(std::shared_ptr<Runtime> runtime, drv::CUdeviceptr external, std::uint64_t byte_len)
    : kit::DeviceBuffer(byte_len), runtime_(std::move(runtime)), external_(external) {
  Telemetry::add(runtime_->telemetry().resident_imports);
}

CudaResident::~CudaResident() {
  try {
    release();
  } catch (const std::exception& error) {
    kit::log(VYRE_LOG_ERROR, std::string("cuda: releasing a resident buffer failed: ") + error.what());
  }
}

void CudaResident::release() {
  if (released_) return;
  Runtime& rt = *runtime_;
  rt.bind_quietly();  // also runs from the destructor; the calls below report their own errors
  EventRef pending;
  drv::CUstream pending_stream = nullptr;
  {
    std::lock_guard lock(rt.order_mutex());
    pending = std::move(last);
    pending_stream = last_stream;
    last_stream = nullptr;
  }
  released_ = true;
  // Wait for the last queued operation before the memory can serve anyone else; when its event
  // cannot be recorded or waited for, wait for its stream instead.
  if (pending) {
    drv::CUevent event = nullptr;
    try {
      event = pending->get();
    } catch (const Error&) {
      event = nullptr;
    }
    if (event == nullptr || rt.driver().cuEventSynchronize(event) != drv::CUDA_SUCCESS) rt.drain(pending_stream);
  }
  if (imported()) return;  // the caller's memory: never freed here
  memory_.release();
  rt.release_resident(byte_len());
  Telemetry::add(rt.telemetry().resident_frees);
}

void CudaResident::synchronize() {
  Runtime& rt = *runtime_;
  EventRef pending;
  {
    std::lock_guard lock(rt.order_mutex());
    pending = last;
  }
  if (pending) rt.driver().check(rt.driver().cuEventSynchronize(pending->get()), "cuEventSynchronize(resident)");
}

void check_external_memory(Runtime& runtime, drv::CUdeviceptr address, std::uint64_t byte_len) {
  runtime.bind();
  const Driver& driver = runtime.driver();
  const int device = runtime.device().ordinal;
  const std::string where = fmt::format("the imported address 0x{:x}", address);
  int ordinal = -1;
  const drv::CUresult found = driver.cuPointerGetAttribute(&ordinal, drv::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, address);
  if (found != drv::CUDA_SUCCESS)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         fmt::format("{} is not memory the CUDA driver knows (cuPointerGetAttribute: {})", where, driver.describe(found)),
         fmt::format("import a device pointer (CUdeviceptr) of CUDA device {}, e.g. from cuMemAlloc, "
                     "PyTorch or CuPy", device));
  if (ordinal != device)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         fmt::format("{} is memory of CUDA device {}; this instance runs on device {}", where, ordinal, device),
         fmt::format("create the instance with device_ordinal {}, or copy the memory to device {}", ordinal, device));
  drv::CUdeviceptr base = 0;
  std::size_t size = 0;
  const drv::CUresult range = driver.cuMemGetAddressRange(&base, &size, address);
  if (range != drv::CUDA_SUCCESS)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         fmt::format("{} is not in a device allocation (cuMemGetAddressRange: {})", where, driver.describe(range)),
         "import device memory from cuMemAlloc (or an allocator built on it), not host or unmapped memory");
  const std::uint64_t available = base + size - address;
  if (byte_len > available)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         fmt::format("{} has {} bytes of its allocation after it; the import asks for {}", where, available, byte_len),
         "import at most the bytes from the address to the end of its allocation");
}

CudaResident& cuda_resident(kit::DeviceBuffer& buffer) {
  auto* resident = dynamic_cast<CudaResident*>(&buffer);
  if (resident == nullptr) {
    fail(VYRE_ERR_INVALID_HANDLE, "The resident buffer does not belong to the cuda backend",
         "allocate resident buffers with the instance that uses them");
  }
  return *resident;
}

ResidentOrder::ResidentOrder(Runtime& runtime, drv::CUstream stream, std::size_t buffers)
    : runtime_(runtime), stream_(stream), lock_(runtime.order_mutex()) {
  used_.reserve(buffers);
}

void ResidentOrder::use(CudaResident& buffer) {
  if (std::find(used_.begin(), used_.end(), &buffer) != used_.end()) return;
  used_.push_back(&buffer);
  if (!buffer.last || buffer.last_stream == stream_) return;
  runtime_.driver().check(runtime_.driver().cuStreamWaitEvent(stream_, buffer.last->get(), 0),
                          "cuStreamWaitEvent");
}

void ResidentOrder::commit(const EventRef& fence) {
  for (CudaResident* buffer : used_) {
    buffer->last = fence;
    buffer->last_stream = stream_;
  }
  lock_.unlock();
}

drv::CUstream common_last_stream(Runtime& runtime, std::span<CudaResident* const> buffers) {
  std::lock_guard lock(runtime.order_mutex());
  drv::CUstream common = nullptr;
  for (const CudaResident* buffer : buffers) {
    if (buffer == nullptr || !buffer->last) continue;
    if (common != nullptr && buffer->last_stream != common) return nullptr;
    common = buffer->last_stream;
  }
  return common;
}

void InFlightGuard::add(const std::shared_ptr<kit::DeviceBuffer>& buffer) {
  if (!buffer) return;
  for (const auto& held : buffers_) {
    if (held == buffer) return;
  }
  buffer->in_flight.fetch_add(1);
  buffers_.push_back(buffer);
}

void InFlightGuard::clear() {
  for (const auto& buffer : buffers_) buffer->in_flight.fetch_sub(1);
  buffers_.clear();
}

}  // namespace vyre::cuda
