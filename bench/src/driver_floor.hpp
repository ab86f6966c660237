// The CUDA driver's own launch floor, measured in the same run as P3 (issue 11 part 4): the same
// 1024-element u32 xor (4 blocks of 256) launched `count` times back to back with cuLaunchKernel on
// one non-blocking stream, without vyre. P3's goal is vyre's enqueue time at most 0.3 us above it.
// The kernel and driver come from driver_kernel.hpp (libcuda opened at run time, so vyre-bench still
// builds and runs without one). bench/floor/driver_floor.cpp measures more driver paths by hand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vyre::bench {

struct DriverFloor {
  std::vector<double> enqueue_ns;  // per sample: the enqueue loop's host time / count
  std::vector<double> total_ns;    // per sample: until the stream finished / count
  std::string unavailable;         // why it was not measured (no driver, no device...), else empty
};

// Thread-compatible; makes its own module and stream on the primary context of device `ordinal`
// and releases them before returning. Never throws: a failure is reported in `unavailable`.
DriverFloor measure_driver_launch_floor(int ordinal, std::uint64_t count, std::uint32_t warmup,
                                        std::uint32_t reps);

}  // namespace vyre::bench
