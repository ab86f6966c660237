// Host memory the interpreter runs on: 8-byte aligned (so every element type is naturally
// aligned for std::atomic_ref), zero-filled or copied from the caller's bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <string_view>

#include "vyre/error.hpp"

namespace vyre::refcpu {

class HostMemory {
 public:
  HostMemory() = default;
  // `byte_len` zero bytes; VYRE_ERR_OUT_OF_MEMORY naming `what` when the host has none left.
  HostMemory(std::uint64_t byte_len, std::string_view what);
  // A copy of `bytes`.
  HostMemory(std::span<const std::byte> bytes, std::string_view what);

  std::byte* data() { return reinterpret_cast<std::byte*>(words_.get()); }
  const std::byte* data() const { return reinterpret_cast<const std::byte*>(words_.get()); }
  std::uint64_t byte_len() const { return byte_len_; }

 private:
  std::unique_ptr<std::uint64_t[]> words_;
  std::uint64_t byte_len_ = 0;
};

}  // namespace vyre::refcpu
