// Host-side inputs and reference results: random u32 data (never zeros: zeros hide unwritten
// outputs), and the values each case's output must equal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace vyre::bench {

// `count` random words from `seed` (splitmix64; the same seed gives the same words).
std::vector<std::uint32_t> random_words(std::size_t count, std::uint64_t seed);

// The number of i with out[i] != a[i] ^ b[i] (and with sizes that differ, every element counts).
std::size_t xor_mismatches(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                           std::span<const std::uint32_t> out);

// The sum of the words, each zero-extended to 64 bits (wrapping modulo 2^64).
std::uint64_t sum_u64(std::span<const std::uint32_t> words);

// splitmix64: the generator behind random_words and the salts of case P5.
std::uint64_t splitmix64(std::uint64_t& state);

// Reinterpret bytes returned by a dispatch or download as u32 words (copied; sizes not a multiple
// of 4 drop the tail).
std::vector<std::uint32_t> words_of(std::span<const std::byte> bytes);

}  // namespace vyre::bench
