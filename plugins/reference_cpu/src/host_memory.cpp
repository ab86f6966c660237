#include "host_memory.hpp"

#include <fmt/format.h>

namespace vyre::refcpu {

namespace {

std::unique_ptr<std::uint64_t[]> allocate(std::uint64_t byte_len, bool zero, std::string_view what) {
  std::uint64_t words = byte_len / 8 + (byte_len % 8 != 0 ? 1 : 0);
  if (words == 0) return nullptr;
  try {
    if (zero) return std::make_unique<std::uint64_t[]>(words);
    return std::make_unique_for_overwrite<std::uint64_t[]>(words);
  } catch (const std::bad_alloc&) {
    fail(VYRE_ERR_OUT_OF_MEMORY,
         fmt::format("reference_cpu could not allocate {} bytes of host memory for {}", byte_len, what),
         "use smaller buffers, or free host memory");
  }
}

}  // namespace

HostMemory::HostMemory(std::uint64_t byte_len, std::string_view what)
    : words_(allocate(byte_len, true, what)), byte_len_(byte_len) {}

HostMemory::HostMemory(std::span<const std::byte> bytes, std::string_view what)
    : words_(allocate(bytes.size(), false, what)), byte_len_(bytes.size()) {
  if (!bytes.empty()) std::memcpy(words_.get(), bytes.data(), bytes.size());
  std::uint64_t tail = byte_len_ % 8;
  if (tail != 0) std::memset(data() + byte_len_, 0, 8 - tail);  // keep the padding defined
}

}  // namespace vyre::refcpu
