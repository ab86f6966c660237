// Buffers and the pool that recycles them. Two kinds:
//   - Device:  device-local memory, bound as storage buffers and copied to and from;
//   - Staging: host-visible, coherent memory (cached where offered) that the host maps.
// On unified-memory devices (lavapipe, integrated GPUs) the staging memory type is device-local
// too: `Memory::unified()`, and host dispatches bind staging blocks directly.
//
// Blocks come in power-of-two size classes and go back to the pool when their Block handle is
// destroyed; the pool keeps at most kMaxIdleBytes idle. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/device.hpp"

namespace vyre::vulkan {

enum class MemoryKind : std::uint8_t { Device, Staging };

struct RawBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  std::uint64_t size = 0;
  std::byte* mapped = nullptr;  // staging (and unified device) memory only
};

class Memory;

// A pooled buffer; returns to its pool when destroyed.
class Block {
 public:
  Block() = default;
  Block(std::shared_ptr<Memory> owner, MemoryKind kind, RawBuffer raw) : owner_(std::move(owner)), kind_(kind), raw_(raw) {}
  ~Block();
  Block(Block&& other) noexcept;
  Block& operator=(Block&& other) noexcept;
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;

  explicit operator bool() const { return raw_.buffer != VK_NULL_HANDLE; }
  VkBuffer buffer() const { return raw_.buffer; }
  std::uint64_t size() const { return raw_.size; }
  std::byte* mapped() const { return raw_.mapped; }

 private:
  void release();
  std::shared_ptr<Memory> owner_;
  MemoryKind kind_ = MemoryKind::Device;
  RawBuffer raw_;
};

class Memory : public std::enable_shared_from_this<Memory> {
 public:
  static constexpr std::uint64_t kMaxIdleBytes = 256ull << 20;
  static constexpr std::uint64_t kMinBlock = 256;

  explicit Memory(std::shared_ptr<Device> device);
  ~Memory();

  // A block of at least `bytes` bytes (contents undefined). Throws VYRE_ERR_OUT_OF_MEMORY when the
  // device has no room even after the pool frees its idle blocks.
  Block acquire(MemoryKind kind, std::uint64_t bytes);
  // True when staging memory is device-local as well (host dispatches need no copies).
  bool unified() const { return unified_; }
  // Frees every idle block.
  void trim();

  void give_back(MemoryKind kind, RawBuffer raw);

 private:
  RawBuffer create(MemoryKind kind, std::uint64_t size);
  void destroy(const RawBuffer& raw);
  std::uint32_t memory_type(MemoryKind kind, std::uint32_t allowed) const;

  std::shared_ptr<Device> device_;
  bool unified_ = false;
  std::mutex mutex_;
  std::map<std::pair<MemoryKind, std::uint64_t>, std::vector<RawBuffer>> idle_;
  std::uint64_t idle_bytes_ = 0;
};

}  // namespace vyre::vulkan
