// Shared by the Vulkan device tests: the vulkan and reference_cpu plugins of this build through
// the host wrapper, skipping (exit 77, with the reason) where no Vulkan device is usable, and small
// helpers for bytes and environment variables.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "vyre/backend.hpp"

namespace vyre::vulkantest {

// A new vulkan instance; prints "SKIP: <reason>" and exits 77 when there is no Vulkan device.
host::Backend vulkan(const CreateOptions& options = {});
// The shared reference_cpu instance.
const host::Backend& reference();
// The op ids the vulkan plugin declares.
const std::vector<std::string>& vulkan_ops();

std::uint64_t metric(const host::Backend& backend, std::string_view name);

template <class T>
host::ByteVector bytes_of(const std::vector<T>& values) {
  host::ByteVector out(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

template <class T>
std::vector<T> values_of(const host::ByteVector& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace vyre::vulkantest
