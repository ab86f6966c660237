// One libFuzzer target: VYRE_FUZZ_HARNESS names the harness function (fuzz/harness/harness.hpp).
#include <cstddef>
#include <cstdint>

#include "harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  VYRE_FUZZ_HARNESS(vyre::fuzz::Input(data, size));
  return 0;
}
