// The resident set-up of the tiny-kernel cases (P3, P9): the xor program compiled, three resident
// buffers a, b (random words, uploaded) and out, bound in the program's order.
#pragma once

#include <cstdint>
#include <vector>

#include "vyre/backend.hpp"

namespace vyre::bench {

struct ResidentXor {
  std::vector<std::uint32_t> a, b;
  vyre::host::Program program;
  std::vector<vyre::host::ResidentBuffer> buffers;  // a, b, out
  std::vector<vyre::host::Binding> bindings;

  // How many elements of out differ from a ^ b (downloads out, after every earlier work on it).
  std::size_t mismatches(const vyre::host::Backend& backend) const;
};

ResidentXor resident_xor(const vyre::host::Backend& backend, std::uint32_t elements, std::uint64_t seed_a,
                         std::uint64_t seed_b);

}  // namespace vyre::bench
