// Backend instances and the process-wide table of live ones.
#include "instance.hpp"

#include <unordered_map>

#include "vyre/error.hpp"

namespace vyre::kit::detail {

namespace {

struct InstanceTable {
  std::mutex mutex;
  std::unordered_map<std::uint64_t, std::shared_ptr<Instance>> live;
};

// Lives until the library is unloaded (or after every C++ static destructor at exit), so hosts
// that destroy instances from their own static destructors still find it.
InstanceTable* g_instances = nullptr;

InstanceTable& instances() {
  static InstanceTable* table = g_instances = new InstanceTable;
  return *table;
}

// An ELF destructor: runs at dlclose, or at exit after the C++ static destructors. Instances a host
// leaked are left alone (destroying backends this late is not safe).
__attribute__((destructor)) void free_instance_table() {
  if (g_instances == nullptr || !g_instances->live.empty()) return;
  delete g_instances;
  g_instances = nullptr;
}

}  // namespace

PendingEntry::~PendingEntry() { pending.reset(); }

Instance::Instance(std::unique_ptr<BackendImpl> backend) : backend_(std::move(backend)) {}

Instance::~Instance() {
  pendings.take_all().clear();   // each Pending's destructor waits for its work
  pipelines.take_all().clear();
  programs.take_all().clear();
  for (const std::shared_ptr<DeviceBuffer>& buffer : residents.take_all()) {
    try {
      backend_->resident_free(*buffer);
    } catch (...) {
      // Destruction cannot report; the buffer's own destructor still releases its memory.
    }
  }
  backend_.reset();
}

std::uint64_t add_instance(std::shared_ptr<Instance> instance) {
  const std::uint64_t id = next_handle_id();
  InstanceTable& table = instances();
  std::lock_guard lock(table.mutex);
  table.live.emplace(id, std::move(instance));
  return id;
}

std::shared_ptr<Instance> find_instance(const vyre_backend* handle) {
  const std::uint64_t id = from_handle(handle);
  InstanceTable& table = instances();
  {
    std::lock_guard lock(table.mutex);
    auto it = table.live.find(id);
    if (it != table.live.end()) return it->second;
  }
  if (id == 0)
    fail(VYRE_ERR_INVALID_HANDLE, "the backend instance handle is NULL",
         "pass the vyre_backend* returned by create");
  fail(VYRE_ERR_INVALID_HANDLE,
       "the backend instance handle is not a live instance of this plugin (destroyed, or made by "
       "another plugin)",
       "pass the vyre_backend* returned by this plugin's create, before destroy");
}

std::shared_ptr<Instance> take_instance(const vyre_backend* handle) noexcept {
  const std::uint64_t id = from_handle(handle);
  InstanceTable& table = instances();
  std::lock_guard lock(table.mutex);
  auto it = table.live.find(id);
  if (it == table.live.end()) return nullptr;
  std::shared_ptr<Instance> instance = std::move(it->second);
  table.live.erase(it);
  return instance;
}

}  // namespace vyre::kit::detail
