// Case P5's program: 50 top-level statements (a dependent chain of u32 arithmetic) whose
// constants derive from a salt, so that a new salt is a program no JIT cache has seen.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "vyre/ir.hpp"

namespace vyre::bench {

inline constexpr std::size_t kChainStatements = 50;
inline constexpr std::uint32_t kChainElements = 1024;

// a (read, kChainElements u32) -> out (output): out[i] = chain(a[i]).
vyre::Program chain_program(std::uint32_t salt);

// What out[] must hold for input `a`.
std::vector<std::uint32_t> chain_on_host(std::uint32_t salt, std::span<const std::uint32_t> a);

}  // namespace vyre::bench
