#include "resident_xor.hpp"

#include "host_data.hpp"
#include "programs.hpp"

namespace vyre::bench {

ResidentXor resident_xor(const vyre::host::Backend& backend, std::uint32_t elements, std::uint64_t seed_a,
                         std::uint64_t seed_b) {
  ResidentXor x;
  x.a = random_words(elements, seed_a);
  x.b = random_words(elements, seed_b);
  x.program = backend.compile(xor_program(elements));
  x.buffers = backend.alloc_many(std::vector<std::uint64_t>(3, std::uint64_t{elements} * 4));
  backend.upload(x.buffers[0], 0, vyre::host::as_bytes(x.a));
  backend.upload(x.buffers[1], 0, vyre::host::as_bytes(x.b));
  for (const auto& buffer : x.buffers) x.bindings.push_back(vyre::host::Binding::of(buffer));
  return x;
}

std::size_t ResidentXor::mismatches(const vyre::host::Backend& backend) const {
  return xor_mismatches(a, b, words_of(backend.download(buffers[2], 0, a.size() * 4)));
}

}  // namespace vyre::bench
