// Handle ids and the invalid-handle error.
#include "handles.hpp"

#include <atomic>
#include <random>
#include <string>

namespace vyre::kit::detail {

namespace {

// Random high bits per library load, a counter in the low bits: ids of two plugins loaded in
// the same process almost never collide, and no id repeats within one library.
std::uint64_t initial_handle_id() {
  std::random_device device;
  const std::uint64_t high = (static_cast<std::uint64_t>(device()) << 32) | device();
  return (high & ~0xFFFFFFFFull) | 0x1000;
}

}  // namespace

std::uint64_t next_handle_id() {
  static std::atomic<std::uint64_t> counter{initial_handle_id()};
  std::uint64_t id = counter.fetch_add(1, std::memory_order_relaxed);
  while (id == 0) id = counter.fetch_add(1, std::memory_order_relaxed);
  return id;
}

void fail_invalid_handle(std::string_view kind, std::uint64_t id) {
  if (id == 0)
    fail(VYRE_ERR_INVALID_HANDLE, std::string(kind) + " handle is NULL",
         "pass a handle returned by this backend instance");
  fail(VYRE_ERR_INVALID_HANDLE,
       std::string(kind) + " handle is not live in this backend instance (released, or made by "
                           "another instance)",
       "use a handle only with the instance that created it, and not after releasing it");
}

}  // namespace vyre::kit::detail
