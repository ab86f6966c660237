// Split [0, n) into one contiguous chunk per hardware thread and run `body(begin, end, chunk)` on
// each (the host side of large inputs: random fill, reference results).
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace vyre::bench {

inline unsigned host_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

template <class Body>
void parallel_chunks(std::size_t n, const Body& body) {
  const std::size_t chunks = std::min<std::size_t>(host_threads(), std::max<std::size_t>(1, n / 65536));
  if (chunks <= 1) {
    body(std::size_t{0}, n, std::size_t{0});
    return;
  }
  std::vector<std::thread> workers;
  workers.reserve(chunks);
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t begin = n * c / chunks;
    const std::size_t end = n * (c + 1) / chunks;
    workers.emplace_back([&body, begin, end, c] { body(begin, end, c); });
  }
  for (auto& w : workers) w.join();
}

}  // namespace vyre::bench
