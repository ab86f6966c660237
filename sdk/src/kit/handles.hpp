// Opaque handles of the plugin kit. A handle is never a pointer to an object: it is an id drawn
// from one process-wide counter (seeded randomly per library, so two plugins hardly ever share
// ids) and never reused. Each instance keeps its own tables, so a NULL, released or foreign
// handle (another instance's, even of the same plugin) is simply not found.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "vyre/error.hpp"

namespace vyre::kit::detail {

// A fresh id, never 0 and never handed out before in this process.
std::uint64_t next_handle_id();

template <class Handle>
Handle* to_handle(std::uint64_t id) {
  return reinterpret_cast<Handle*>(static_cast<std::uintptr_t>(id));
}

template <class Handle>
std::uint64_t from_handle(const Handle* handle) {
  return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(handle));
}

[[noreturn]] void fail_invalid_handle(std::string_view kind, std::uint64_t id);

// Thread-safe map from ids to shared objects.
template <class T>
class HandleTable {
 public:
  explicit HandleTable(std::string_view kind) : kind_(kind) {}

  std::uint64_t insert(std::shared_ptr<T> object) {
    const std::uint64_t id = next_handle_id();
    std::lock_guard lock(mutex_);
    items_.emplace(id, std::move(object));
    return id;
  }

  // The object, or VYRE_ERR_INVALID_HANDLE.
  std::shared_ptr<T> get(std::uint64_t id) const {
    std::lock_guard lock(mutex_);
    auto it = items_.find(id);
    if (it == items_.end()) fail_invalid_handle(kind_, id);
    return it->second;
  }

  // Remove and return the object, or VYRE_ERR_INVALID_HANDLE.
  std::shared_ptr<T> take(std::uint64_t id) {
    std::lock_guard lock(mutex_);
    auto it = items_.find(id);
    if (it == items_.end()) fail_invalid_handle(kind_, id);
    std::shared_ptr<T> object = std::move(it->second);
    items_.erase(it);
    return object;
  }

  // Remove and return the object if `keep(object)` is false; otherwise leave it and return null.
  // Atomic with respect to every other call on the table.
  template <class Pred>
  std::shared_ptr<T> take_unless(std::uint64_t id, Pred keep) {
    std::lock_guard lock(mutex_);
    auto it = items_.find(id);
    if (it == items_.end()) fail_invalid_handle(kind_, id);
    if (keep(*it->second)) return nullptr;
    std::shared_ptr<T> object = std::move(it->second);
    items_.erase(it);
    return object;
  }

  std::vector<std::shared_ptr<T>> take_all() {
    std::lock_guard lock(mutex_);
    std::vector<std::shared_ptr<T>> all;
    all.reserve(items_.size());
    for (auto& [id, object] : items_) all.push_back(std::move(object));
    items_.clear();
    return all;
  }

 private:
  std::string_view kind_;
  mutable std::mutex mutex_;
  std::unordered_map<std::uint64_t, std::shared_ptr<T>> items_;
};

}  // namespace vyre::kit::detail
