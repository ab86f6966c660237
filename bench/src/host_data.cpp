#include "host_data.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "parallel.hpp"

namespace vyre::bench {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E37'79B9'7F4A'7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58'476D'1CE4'E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D0'49BB'1331'11EBull;
  return z ^ (z >> 31);
}

std::vector<std::uint32_t> random_words(std::size_t count, std::uint64_t seed) {
  std::vector<std::uint32_t> words(count);
  parallel_chunks(count, [&](std::size_t begin, std::size_t end, std::size_t chunk) {
    std::uint64_t state = seed ^ (0xA076'1D64'78BD'642Full * (chunk + 1));
    for (std::size_t i = begin; i < end; ++i) words[i] = static_cast<std::uint32_t>(splitmix64(state) >> 32);
  });
  return words;
}

std::size_t xor_mismatches(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                           std::span<const std::uint32_t> out) {
  if (a.size() != b.size() || a.size() != out.size()) return std::max({a.size(), b.size(), out.size()});
  std::atomic<std::size_t> mismatches{0};
  parallel_chunks(a.size(), [&](std::size_t begin, std::size_t end, std::size_t) {
    std::size_t local = 0;
    for (std::size_t i = begin; i < end; ++i) local += out[i] != (a[i] ^ b[i]);
    mismatches += local;
  });
  return mismatches;
}

std::uint64_t sum_u64(std::span<const std::uint32_t> words) {
  std::atomic<std::uint64_t> total{0};
  parallel_chunks(words.size(), [&](std::size_t begin, std::size_t end, std::size_t) {
    std::uint64_t local = 0;
    for (std::size_t i = begin; i < end; ++i) local += words[i];
    total += local;
  });
  return total;
}

std::vector<std::uint32_t> words_of(std::span<const std::byte> bytes) {
  std::vector<std::uint32_t> words(bytes.size() / 4);
  if (!words.empty()) std::memcpy(words.data(), bytes.data(), words.size() * 4);
  return words;
}

}  // namespace vyre::bench
