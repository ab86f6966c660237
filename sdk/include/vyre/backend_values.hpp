// Plain values that both C++ sides of the backend ABI use unchanged: the host wrapper
// (vyre::host, backend.hpp) hands them to callers and the plugin kit (vyre::kit, plugin_kit.hpp)
// hands them to backends. One definition each, so the two sides cannot drift apart.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vyre {

// How to create a backend instance (vyre_create_options).
struct CreateOptions {
  std::optional<int> device_ordinal;  // unset: the backend's default
  bool reverse_workgroups = false;    // run workgroups in reverse order (exposes races)
  std::uint32_t worker_threads = 0;   // 0: the backend's default
  std::uint64_t memory_budget_bytes = 0;
};

// How long a dispatch took (vyre_timing), in nanoseconds.
struct Timing {
  std::uint64_t wall_ns = 0;
  std::uint64_t device_ns = 0;  // valid only if has_device_ns
  std::uint64_t enqueue_ns = 0;
  std::uint64_t wait_ns = 0;
  bool has_device_ns = false;
};

// One file of an AOT bundle (vyre_aot_file).
struct AotFile {
  std::string name;  // relative, '/'-separated
  std::vector<std::uint8_t> data;
};

}  // namespace vyre
