// The scaling program of case R2 and of the size-scaling tests: `lets` chained let statements in
// one scope, each reading the previous variable and one declared twice as far back (so lookups
// reach deep into the scope), with a block, a loop and an if/else woven in at fixed strides (so
// scopes open and close and a variable is assigned). About 1.02 nodes per let; an element's value
// depends on every statement.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "vyre/ir.hpp"

namespace vyre::bench {

// Elements (and invocations: one workgroup of kLargeElements) of the program's two buffers. Small,
// because the reference keeps one register per live variable per lane.
inline constexpr std::uint32_t kLargeElements = 4;

// a (read, u32 x kLargeElements) -> out (output): out[i] = the chain of `lets` statements on a[i].
// `lets` >= 2.
vyre::Program large_program(std::uint32_t lets);

// What out[] must hold for input `a` (evaluated on the host).
std::vector<std::uint32_t> large_program_on_host(std::uint32_t lets, std::span<const std::uint32_t> a);

}  // namespace vyre::bench
