// A resident buffer: device memory that outlives dispatches, zero at allocation, counted against
// the instance's memory budget. Work on resident buffers is queued on many streams; each buffer
// remembers the event of the last operation queued on it (`last`), and every new operation makes
// its stream wait for that event first (ResidentOrder), unless it is queued on the very stream that
// event was recorded on (stream order then suffices; resident dispatches prefer that stream). So
// operations on one buffer run in the order they were queued, work on unrelated buffers overlaps,
// and nothing synchronises the device.
// An imported buffer (resident_import) wraps device memory the caller owns: the same ordering, but
// no budget, no zero fill, and its memory is never freed here.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "runtime/block_pool.hpp"
#include "runtime/runtime.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::cuda {

class CudaResident final : public kit::DeviceBuffer {
 public:
  // Reserve the budget, take device memory, zero it (queued; `last` fences it). Throws
  // VYRE_ERR_OUT_OF_MEMORY (requested and available bytes) and leaves nothing reserved.
  CudaResident(std::shared_ptr<Runtime> runtime, std::uint64_t byte_len);
  // Wrap `byte_len` bytes of caller-owned device memory at `external` (see check_external_memory).
  CudaResident(std::shared_ptr<Runtime> runtime, drv::CUdeviceptr external, std::uint64_t byte_len);
  ~CudaResident() override;

  drv::CUdeviceptr pointer() const { return external_ != 0 ? external_ : memory_.address(); }
  bool imported() const { return external_ != 0; }
  // Wait for the last operation queued on the buffer so far (resident_export).
  void synchronize();
  // Wait for the last operation, then give the memory and the budget back (imported memory: only
  // the wait). Idempotent.
  void release();

  EventRef last;                      // guarded by Runtime::order_mutex()
  drv::CUstream last_stream = nullptr;  // the stream `last` was recorded on (same guard)

 private:
  std::shared_ptr<Runtime> runtime_;
  Block memory_;
  drv::CUdeviceptr external_ = 0;
  bool released_ = false;
};

// Throws VYRE_ERR_INVALID_ARGUMENT unless [address, address + byte_len) lies inside one device
// allocation of the runtime's device, as the driver reports it (a CUdeviceptr from cuMemAlloc,
// PyTorch, CuPy...; a virtual-memory mapping counts as its mapped range).
void check_external_memory(Runtime& runtime, drv::CUdeviceptr address, std::uint64_t byte_len);

// The CudaResident behind a kit handle; VYRE_ERR_INVALID_HANDLE for another backend's buffer.
CudaResident& cuda_resident(kit::DeviceBuffer& buffer);

// The stream on which the last operations of all of `buffers` were queued, when it is one stream
// (work queued there needs no cross-stream wait for them); null otherwise or when none has one.
// Null entries in `buffers` are skipped.
drv::CUstream common_last_stream(Runtime& runtime, std::span<CudaResident* const> buffers);

// Orders one operation after the earlier operations on the buffers it touches. Holds the
// runtime's order mutex from construction to commit, so "wait for last, then become last" is
// atomic across threads.
class ResidentOrder {
 public:
  ResidentOrder(Runtime& runtime, drv::CUstream stream, std::size_t buffers = 0);
  // The stream waits for `buffer`'s last operation (once per buffer; not at all when that
  // operation was queued on this stream).
  void use(CudaResident& buffer);
  // Every used buffer's last operation becomes the one `fence` ends (recorded on this stream).
  void commit(const EventRef& fence);

 private:
  Runtime& runtime_;
  drv::CUstream stream_;
  std::unique_lock<std::mutex> lock_;
  std::vector<CudaResident*> used_;
};

// Adds one in-flight use to each distinct buffer for the guard's life (the kit refuses
// resident_free while a buffer is in flight).
class InFlightGuard {
 public:
  InFlightGuard() = default;
  void reserve(std::size_t count) { buffers_.reserve(count); }
  void add(const std::shared_ptr<kit::DeviceBuffer>& buffer);
  void clear();
  ~InFlightGuard() { clear(); }
  InFlightGuard(const InFlightGuard&) = delete;
  InFlightGuard& operator=(const InFlightGuard&) = delete;
  const std::vector<std::shared_ptr<kit::DeviceBuffer>>& buffers() const { return buffers_; }

 private:
  std::vector<std::shared_ptr<kit::DeviceBuffer>> buffers_;
};

}  // namespace vyre::cuda
