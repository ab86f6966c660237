#include "driver_floor.hpp"

#include "clock.hpp"
#include "driver_kernel.hpp"

namespace vyre::bench {

DriverFloor measure_driver_launch_floor(int ordinal, std::uint64_t count, std::uint32_t warmup,
                                        std::uint32_t reps) {
  DriverFloor floor;
  try {
    DriverXorKernel kernel(open_driver_api(), ordinal);
    const double per = 1.0 / static_cast<double>(count);
    for (std::uint32_t r = 0; r < warmup + reps; ++r) {
      const std::uint64_t start = now_ns();
      for (std::uint64_t k = 0; k < count; ++k) kernel.launch();
      const std::uint64_t enqueued = now_ns();
      kernel.finish();
      const std::uint64_t finished = now_ns();
      if (r < warmup) continue;
      floor.enqueue_ns.push_back(static_cast<double>(enqueued - start) * per);
      floor.total_ns.push_back(static_cast<double>(finished - start) * per);
    }
  } catch (const DriverFailure& e) {
    floor = DriverFloor{};
    floor.unavailable = e.what();
  }
  return floor;
}

}  // namespace vyre::bench
