// A tiny interpreter for the test plugins: u32 buffers, 1-D geometry, and the ops
// lit/var/load/buf_len/invocation_id, bin add/sub/xor/lt, let/store/if/return. Enough to make
// the registry's test backends compute real results (elementwise copy, xor, add).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "vyre/geometry.hpp"
#include "vyre/ir.hpp"

namespace vyre::test {

// Run `program` over `buffers` (one span of u32 words per declared buffer) with `geometry`.
// Throws vyre::Error (VYRE_ERR_UNSUPPORTED) for anything outside the subset.
void interpret(const Program& program, const LaunchGeometry& geometry,
               std::span<const std::span<std::uint32_t>> buffers);

}  // namespace vyre::test
