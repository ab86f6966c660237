// Large host transfers through a small pinned ring: two slots of at most kTransferSlotBytes, so a
// host dispatch of any size holds its inputs and outputs once (the caller's memory) plus the ring,
// instead of a pinned copy of everything. While one slot's DMA runs, the host fills or drains the
// other, so the copy engine stays busy. Not thread-safe: one owner (a HostRun) uses it.
#pragma once

#include <cstdint>

#include "runtime/block_pool.hpp"
#include "runtime/stream_pool.hpp"

namespace vyre::cuda {

class Runtime;

// The most bytes one slot holds; a ring is two slots, smaller when no transfer needs a full one.
inline constexpr std::uint64_t kTransferSlotBytes = 16ull << 20;

class TransferRing {
 public:
  TransferRing() = default;
  // A ring for transfers of at most `largest` bytes each (the slots are no larger than needed).
  TransferRing(Runtime& runtime, std::uint64_t largest);

  // Queue `bytes` from host `src` to `dst` on `stream`. Returns when every byte of `src` has been
  // copied into the ring (the caller may then reuse `src`); the last DMAs may still be in flight,
  // so the ring must outlive the stream's work (wait_idle or a later fence).
  void upload(Runtime& runtime, const std::byte* src, drv::CUdeviceptr dst, std::uint64_t bytes,
              drv::CUstream stream);
  // Copy `bytes` from `src` to host `dst` through `stream`; returns when `dst` holds all of them.
  // On a driver failure a prefix of `dst` may already be written.
  void download(Runtime& runtime, drv::CUdeviceptr src, std::byte* dst, std::uint64_t bytes,
                drv::CUstream stream);
  std::uint64_t slot_bytes() const { return slot_bytes_; }
  void release() { block_.release(); }

 private:
  std::byte* slot(int index) const { return block_.host() + static_cast<std::uint64_t>(index) * slot_bytes_; }
  void wait_slot(Runtime& runtime, int index);  // until the slot's last DMA is done
  void mark_slot(Runtime& runtime, int index, drv::CUstream stream);

  Block block_;
  std::uint64_t slot_bytes_ = 0;
  EventRef events_[2];
  bool busy_[2] = {false, false};
  int next_ = 0;
};

}  // namespace vyre::cuda
