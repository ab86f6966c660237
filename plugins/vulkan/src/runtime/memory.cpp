#include "runtime/memory.hpp"

#include <algorithm>
#include <bit>

#include "vyre/error.hpp"

namespace vyre::vulkan {

namespace {

constexpr VkBufferUsageFlags kUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

// Powers of two up to 64 MiB, then multiples of 16 MiB.
std::uint64_t size_class(std::uint64_t bytes) {
  constexpr std::uint64_t kLarge = 64ull << 20, kStep = 16ull << 20;
  if (bytes > kLarge) return (bytes + kStep - 1) / kStep * kStep;
  return std::bit_ceil(std::max(bytes, Memory::kMinBlock));
}

}  // namespace

Block::~Block() { release(); }

Block::Block(Block&& other) noexcept : owner_(std::move(other.owner_)), kind_(other.kind_), raw_(other.raw_) {
  other.raw_ = {};
}

Block& Block::operator=(Block&& other) noexcept {
  if (this != &other) {
    release();
    owner_ = std::move(other.owner_);
    kind_ = other.kind_;
    raw_ = other.raw_;
    other.raw_ = {};
  }
  return *this;
}

void Block::release() {
  if (owner_ && raw_.buffer != VK_NULL_HANDLE) owner_->give_back(kind_, raw_);
  raw_ = {};
  owner_.reset();
}

Memory::Memory(std::shared_ptr<Device> device) : device_(std::move(device)) {
  const VkPhysicalDeviceMemoryProperties& mp = device_->memory();
  const std::uint32_t staging = memory_type(MemoryKind::Staging, ~0u);
  unified_ = (mp.memoryTypes[staging].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0;
}

Memory::~Memory() { trim(); }

std::uint32_t Memory::memory_type(MemoryKind kind, std::uint32_t allowed) const {
  const VkPhysicalDeviceMemoryProperties& mp = device_->memory();
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  // Preferences, best first: flags that must all be present.
  std::vector<VkMemoryPropertyFlags> wanted;
  if (kind == MemoryKind::Device) {
    wanted = {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, host};
  } else {
    wanted = {host | VK_MEMORY_PROPERTY_HOST_CACHED_BIT | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
              host | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, host};
  }
  for (VkMemoryPropertyFlags flags : wanted)
    for (std::uint32_t i = 0; i < mp.memoryTypeCount; ++i)
      if ((allowed & (1u << i)) && (mp.memoryTypes[i].propertyFlags & flags) == flags) return i;
  fail(VYRE_ERR_DEVICE, "the Vulkan device has no suitable memory type for " +
                            std::string(kind == MemoryKind::Device ? "device buffers" : "host-visible staging"),
       "use another Vulkan device or driver");
}

RawBuffer Memory::create(MemoryKind kind, std::uint64_t size) {
  const DeviceFns& fn = device_->fn();
  VkDevice dev = device_->handle();
  RawBuffer raw;
  raw.size = size;
  auto info = vk_struct<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  info.size = size;
  info.usage = kUsage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check(fn.vkCreateBuffer(dev, &info, nullptr, &raw.buffer), "vkCreateBuffer");
  VkMemoryRequirements req{};
  fn.vkGetBufferMemoryRequirements(dev, raw.buffer, &req);
  auto alloc = vk_struct<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = memory_type(kind, req.memoryTypeBits);
  const VkResult r = fn.vkAllocateMemory(dev, &alloc, nullptr, &raw.memory);
  if (r != VK_SUCCESS) {
    fn.vkDestroyBuffer(dev, raw.buffer, nullptr);
    check(r, "vkAllocateMemory (" + std::to_string(size) + " bytes)",
          "free resident buffers or dispatch smaller inputs; the device is out of memory");
  }
  auto cleanup = [&] {
    fn.vkFreeMemory(dev, raw.memory, nullptr);
    fn.vkDestroyBuffer(dev, raw.buffer, nullptr);
  };
  VkResult bound = fn.vkBindBufferMemory(dev, raw.buffer, raw.memory, 0);
  if (bound != VK_SUCCESS) {
    cleanup();
    check(bound, "vkBindBufferMemory");
  }
  const bool host_visible = (device_->memory().memoryTypes[alloc.memoryTypeIndex].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) != 0;
  if (kind == MemoryKind::Staging || (host_visible && unified_)) {
    void* ptr = nullptr;
    const VkResult mapped = fn.vkMapMemory(dev, raw.memory, 0, VK_WHOLE_SIZE, 0, &ptr);
    if (mapped != VK_SUCCESS) {
      cleanup();
      check(mapped, "vkMapMemory");
    }
    raw.mapped = static_cast<std::byte*>(ptr);
  }
  return raw;
}

void Memory::destroy(const RawBuffer& raw) {
  if (drivers_shut_down()) return;  // see loader.hpp
  const DeviceFns& fn = device_->fn();
  fn.vkDestroyBuffer(device_->handle(), raw.buffer, nullptr);
  fn.vkFreeMemory(device_->handle(), raw.memory, nullptr);  // unmaps implicitly
}

Block Memory::acquire(MemoryKind kind, std::uint64_t bytes) {
  const std::uint64_t size = size_class(bytes);
  {
    std::lock_guard lock(mutex_);
    auto& list = idle_[{kind, size}];
    if (!list.empty()) {
      RawBuffer raw = list.back();
      list.pop_back();
      idle_bytes_ -= size;
      return Block(shared_from_this(), kind, raw);
    }
  }
  try {
    return Block(shared_from_this(), kind, create(kind, size));
  } catch (const Error& e) {
    if (e.code() != VYRE_ERR_OUT_OF_MEMORY) throw;
    trim();  // idle blocks may be what stands in the way; one retry
    return Block(shared_from_this(), kind, create(kind, size));
  }
}

void Memory::give_back(MemoryKind kind, RawBuffer raw) {
  {
    std::lock_guard lock(mutex_);
    if (idle_bytes_ + raw.size <= kMaxIdleBytes) {
      idle_[{kind, raw.size}].push_back(raw);
      idle_bytes_ += raw.size;
      return;
    }
  }
  destroy(raw);
}

void Memory::trim() {
  std::map<std::pair<MemoryKind, std::uint64_t>, std::vector<RawBuffer>> idle;
  {
    std::lock_guard lock(mutex_);
    idle.swap(idle_);
    idle_bytes_ = 0;
  }
  for (auto& [key, list] : idle)
    for (const RawBuffer& raw : list) destroy(raw);
}

}  // namespace vyre::vulkan
