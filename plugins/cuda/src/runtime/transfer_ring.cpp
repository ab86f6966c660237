#include "runtime/transfer_ring.hpp"

#include <algorithm>
#include <cstring>

#include "runtime/runtime.hpp"

namespace vyre::cuda {

TransferRing::TransferRing(Runtime& runtime, std::uint64_t largest)
    : slot_bytes_(std::min(largest, kTransferSlotBytes)) {
  if (slot_bytes_ == 0) return;
  slot_bytes_ = (slot_bytes_ + 255) / 256 * 256;
  block_ = runtime.staging().acquire(2 * slot_bytes_);
  events_[0] = runtime.events().acquire();
  events_[1] = runtime.events().acquire();
}

void TransferRing::wait_slot(Runtime& runtime, int index) {
  if (!busy_[index]) return;
  const Driver& driver = runtime.driver();
  driver.check(driver.cuEventSynchronize(events_[index]->get()), "cuEventSynchronize(transfer slot)");
  busy_[index] = false;
}

void TransferRing::mark_slot(Runtime& runtime, int index, drv::CUstream stream) {
  const Driver& driver = runtime.driver();
  driver.check(driver.cuEventRecord(events_[index]->get(), stream), "cuEventRecord(transfer slot)");
  busy_[index] = true;
}

void TransferRing::upload(Runtime& runtime, const std::byte* src, drv::CUdeviceptr dst, std::uint64_t bytes,
                          drv::CUstream stream) {
  const Driver& driver = runtime.driver();
  for (std::uint64_t done = 0; done < bytes;) {
    const std::uint64_t n = std::min(slot_bytes_, bytes - done);
    const int index = next_;
    next_ ^= 1;
    wait_slot(runtime, index);
    std::memcpy(slot(index), src + done, n);
    driver.check(driver.cuMemcpyHtoDAsync(dst + done, slot(index), n, stream), "cuMemcpyHtoDAsync");
    mark_slot(runtime, index, stream);
    Telemetry::add(runtime.telemetry().h2d_operations);
    Telemetry::add(runtime.telemetry().h2d_bytes, n);
    done += n;
  }
}

void TransferRing::download(Runtime& runtime, drv::CUdeviceptr src, std::byte* dst, std::uint64_t bytes,
                            drv::CUstream stream) {
  const Driver& driver = runtime.driver();
  const std::uint64_t chunks = (bytes + slot_bytes_ - 1) / std::max<std::uint64_t>(slot_bytes_, 1);
  auto issue = [&](std::uint64_t k) {  // chunk k into slot k % 2, which holds nothing unread
    const int index = static_cast<int>(k % 2);
    const std::uint64_t offset = k * slot_bytes_;
    const std::uint64_t n = std::min(slot_bytes_, bytes - offset);
    wait_slot(runtime, index);
    driver.check(driver.cuMemcpyDtoHAsync(slot(index), src + offset, n, stream), "cuMemcpyDtoHAsync");
    mark_slot(runtime, index, stream);
    Telemetry::add(runtime.telemetry().d2h_operations);
    Telemetry::add(runtime.telemetry().d2h_bytes, n);
  };
  if (chunks > 0) issue(0);
  for (std::uint64_t k = 0; k < chunks; ++k) {
    if (k + 1 < chunks) issue(k + 1);  // the next chunk's DMA overlaps this chunk's host copy
    const int index = static_cast<int>(k % 2);
    wait_slot(runtime, index);
    const std::uint64_t offset = k * slot_bytes_;
    std::memcpy(dst + offset, slot(index), std::min(slot_bytes_, bytes - offset));
  }
}

}  // namespace vyre::cuda
