// Resident buffers: device blocks that outlive dispatches, zero at allocation, counted against the
// instance's memory budget. Uploads, downloads and resident dispatches go through the queue, so
// they run in the order they were called (submission.hpp); uploads and downloads wait for their
// work before returning.
#pragma once

#include <memory>
#include <span>

#include "runtime/recorder.hpp"

namespace vyre::vulkan {

class VulkanResident final : public kit::DeviceBuffer {
 public:
  // Reserves the budget and zeroes the block. VYRE_ERR_OUT_OF_MEMORY names requested and available
  // bytes and reserves nothing.
  VulkanResident(std::shared_ptr<Runtime> runtime, std::uint64_t byte_len);
  ~VulkanResident() override;

  const Block& block() const { return block_; }

 private:
  std::shared_ptr<Runtime> rt_;
  Block block_;
};

VulkanResident& vulkan_resident(kit::DeviceBuffer& buffer);

void upload(Runtime& rt, std::span<const kit::CheckedWrite> writes);
void download(Runtime& rt, std::span<const kit::CheckedRead> reads);

// A resident dispatch split in two: everything that can fail (the launch checks, the pipelines,
// staging host-bound inputs into `temporaries`), then the recording, which only records commands.
struct PreparedResident {
  struct Copy {
    VkBuffer from, to;
    std::uint64_t bytes;
  };
  const VulkanProgram* program = nullptr;
  const LaunchGeometry* geometry = nullptr;  // the dispatch's; outlives the recording
  std::vector<BoundBuffer> bindings;
  std::vector<Copy> copies;  // staging -> device copies of host inputs (non-unified devices)
};
PreparedResident prepare_resident(Runtime& rt, const kit::ResidentDispatch& dispatch, std::vector<Block>& temporaries);
void record_prepared(Runtime& rt, VkCommandBuffer cmd, const PreparedResident& prepared);

// A resident dispatch recorded into `cmd` (host-bound inputs staged into `temporaries`).
void record_resident(Runtime& rt, VkCommandBuffer cmd, const kit::ResidentDispatch& dispatch, std::vector<Block>& temporaries);

// Queues a resident dispatch; with `wait` returns null after it finished, else a Pending (batched:
// batcher.hpp).
std::unique_ptr<kit::Pending> dispatch_resident(std::shared_ptr<Runtime> rt, const kit::ResidentDispatch& dispatch,
                                                bool wait, vyre::Timing* timing);

// Adds an in-flight use to each distinct buffer for the guard's life.
class InFlightGuard {
 public:
  InFlightGuard() = default;
  ~InFlightGuard() { clear(); }
  InFlightGuard(const InFlightGuard&) = delete;
  InFlightGuard& operator=(const InFlightGuard&) = delete;
  void add(const std::shared_ptr<kit::DeviceBuffer>& buffer);
  void clear();

 private:
  std::vector<std::shared_ptr<kit::DeviceBuffer>> buffers_;
};

}  // namespace vyre::vulkan
