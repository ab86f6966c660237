#include "group/group_extension.hpp"

#include <atomic>
#include <cstring>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>

#include <fmt/format.h>

#include "group/device_group.hpp"
#include "group/device_list.hpp"
#include "group/nccl_library.hpp"
#include "vyre/abi_structs.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::cuda {
namespace {

vyre_status device_count(uint32_t* out, vyre_error** error) {
  return kit::guarded_call(error, [&] {
    if (out == nullptr) fail(VYRE_ERR_INVALID_ARGUMENT, "device_count: out is NULL", "pass where the count should go");
    *out = visible_device_count();
  });
}

vyre_status device_describe(int32_t ordinal, vyre_device_profile* out, vyre_error** error) {
  return kit::guarded_call(error, [&] {
    abi::check_out_struct(out, "vyre_device_profile");
    vyre_device_profile full{};
    full.struct_size = sizeof full;
    describe_device(ordinal, full);
    abi::write_out_struct(full, out);
  });
}

// Set when the registry of live groups below is destroyed (at the plugin's unload or at exit);
// constant-initialized and trivially destructible, so it can be read after that.
std::atomic<bool> groups_destroyed{false};

// Live groups by handle id (never a pointer: a released or bogus handle is simply not found).
// A static object, not an immortal heap one: a plugin that is unloaded must not leave its registry
// behind (LeakSanitizer reports it). A host that releases a group after the registry is gone (a
// static of its own destroyed at exit after this one) finds nothing to release; groups a host
// never released are left alive then, not destroyed while the plugin unloads.
class Groups {
 public:
  Groups() = default;
  Groups(const Groups&) = delete;
  Groups& operator=(const Groups&) = delete;
  ~Groups() {
    groups_destroyed = true;
    for (auto& entry : groups_) (void)new std::shared_ptr<DeviceGroup>(std::move(entry.second));  // the host's leak
  }

  std::uint64_t insert(std::shared_ptr<DeviceGroup> group) {
    std::lock_guard lock(mutex_);
    const std::uint64_t id = ++next_;
    groups_.emplace(id, std::move(group));
    return id;
  }
  std::shared_ptr<DeviceGroup> get(const vyre_device_group* handle) {
    std::lock_guard lock(mutex_);
    const auto found = groups_.find(id_of(handle));
    if (found == groups_.end())
      fail(VYRE_ERR_INVALID_HANDLE, "the device group handle is NULL, released or not from the cuda plugin",
           "pass a group from this plugin's group_create that was not released");
    return found->second;
  }
  std::shared_ptr<DeviceGroup> take(const vyre_device_group* handle) noexcept {
    std::lock_guard lock(mutex_);
    const auto found = groups_.find(id_of(handle));
    if (found == groups_.end()) return nullptr;
    std::shared_ptr<DeviceGroup> group = std::move(found->second);
    groups_.erase(found);
    return group;
  }

 private:
  static std::uint64_t id_of(const vyre_device_group* handle) {
    return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(handle));
  }
  std::mutex mutex_;
  std::unordered_map<std::uint64_t, std::shared_ptr<DeviceGroup>> groups_;
  std::uint64_t next_ = 0x6770000000000000ull;  // "gp": ids unlike other plugins' small numbers
};

Groups& groups() {
  if (groups_destroyed)
    fail(VYRE_ERR_INVALID_HANDLE, "the cuda plugin is being unloaded: its device groups are gone",
         "release device groups before the plugin is unloaded or the process exits");
  static Groups all;
  return all;
}

vyre_status group_create(vyre_backend* const* members, uint32_t member_count, vyre_device_group** out,
                         vyre_error** error) {
  return kit::guarded_call(error, [&] {
    if (out == nullptr) fail(VYRE_ERR_INVALID_ARGUMENT, "group_create: out is NULL", "pass where the group should go");
    *out = nullptr;
    if (members == nullptr && member_count > 0)
      fail(VYRE_ERR_INVALID_ARGUMENT, "group_create: members is NULL", "pass member_count instance handles");
    auto group = std::make_shared<DeviceGroup>(std::span<vyre_backend* const>(members, member_count));
    *out = reinterpret_cast<vyre_device_group*>(static_cast<std::uintptr_t>(groups().insert(std::move(group))));
  });
}

vyre_status group_collective(vyre_device_group* group, const vyre_collective_args* args, vyre_error** error) {
  return kit::guarded_call(error, [&] {
    const vyre_collective_args a = abi::read_struct(args, "vyre_collective_args");
    groups().get(group)->collective(a);
  });
}

vyre_status group_unique_id(uint8_t* out, size_t out_len, vyre_error** error) {
  return kit::guarded_call(error, [&] {
    if (out == nullptr || out_len != VYRE_GROUP_ID_BYTES)
      fail(VYRE_ERR_INVALID_ARGUMENT, "group_unique_id: out is NULL or not VYRE_GROUP_ID_BYTES long",
           "pass a buffer of VYRE_GROUP_ID_BYTES (128) bytes");
    static_assert(sizeof(nccl::UniqueId) == VYRE_GROUP_ID_BYTES);
    const nccl::Library& library = nccl::Library::open();
    nccl::UniqueId id{};
    library.check(library.ncclGetUniqueId(&id), "ncclGetUniqueId", nullptr,
                  "check the host's network interfaces (NCCL_SOCKET_IFNAME) and rerun with NCCL_DEBUG=WARN");
    std::memcpy(out, id.internal, sizeof id.internal);
  });
}

vyre_status group_join(vyre_backend* member, const uint8_t* id, size_t id_len, uint32_t rank_count, uint32_t rank,
                       vyre_device_group** out, vyre_error** error) {
  return kit::guarded_call(error, [&] {
    if (out == nullptr) fail(VYRE_ERR_INVALID_ARGUMENT, "group_join: out is NULL", "pass where the group should go");
    *out = nullptr;
    if (id == nullptr || id_len != VYRE_GROUP_ID_BYTES)
      fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("group_join: the id is NULL or {} bytes long, not {}", id_len,
                                                  VYRE_GROUP_ID_BYTES),
           "pass the id group_unique_id made, unchanged");
    nccl::UniqueId unique{};
    std::memcpy(unique.internal, id, sizeof unique.internal);
    auto group = std::make_shared<DeviceGroup>(member, unique, rank_count, rank);
    *out = reinterpret_cast<vyre_device_group*>(static_cast<std::uintptr_t>(groups().insert(std::move(group))));
  });
}

void group_release(vyre_device_group* group) {
  std::shared_ptr<DeviceGroup> taken = groups_destroyed ? nullptr : groups().take(group);
  try {
    taken.reset();  // waits for its collectives, destroys the communicators
  } catch (...) {   // nothing crosses the C ABI; the destructor does not throw, this is belt and braces
  }
}

const vyre_device_group_extension kExtension{
    {sizeof(vyre_device_group_extension), VYRE_EXTENSION_DEVICE_GROUP, 0, nullptr},
    device_count,
    device_describe,
    kit::dispatch_resident_shard,  // the runtime's dispatch_resident honours ResidentDispatch::shard
    group_create,
    group_collective,
    group_release,
    group_unique_id,
    group_join,
};

}  // namespace

const vyre_extension* device_group_extension() { return &kExtension.base; }

}  // namespace vyre::cuda
