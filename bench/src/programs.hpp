// The programs the cases run, built with the SDK's builder, and the host twins that say what each
// must compute.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "vyre/ir.hpp"

namespace vyre::bench {

inline constexpr std::uint32_t kWorkgroup = 256;

// out[i] = a[i] ^ b[i] over `count` u32 elements (P1, P2, P3, R1).
vyre::Program xor_program(std::uint32_t count);

// total[0] += the sum of data[] zero-extended to u64 (P7): a grid-stride loop of four independent
// loads per trip, a subgroup reduce, and one u64 atomic add per subgroup. Run it with an explicit
// grid; `total` is not zeroed by a resident dispatch.
vyre::Program sum_program();

// The four steps of case P4, each over two read_write-or-read u32 buffers x and y of `count`:
//   0: x = x + 1   1: y = y ^ x   2: x = rotl(x, 7)   3: y = y + x
std::array<vyre::Program, 4> sequence_step_programs(std::uint32_t count);
// Apply the steps `repeats` times to x and y on the host.
void sequence_steps_on_host(std::span<std::uint32_t> x, std::span<std::uint32_t> y, std::uint64_t repeats);

}  // namespace vyre::bench
