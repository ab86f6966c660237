// The materialised-output cache of VYRE_PIPELINE_CACHE_OUTPUTS: a pipeline dispatch whose inputs
// are byte-identical to an earlier one returns the earlier outputs without running. Only for
// programs without read_write buffers (their outputs are a function of the inputs alone, given
// the pipeline's fixed config). The key is SHA-256 over the input count, each input's length and
// its bytes; a hit is confirmed by comparing the stored input bytes, so a hash collision can never
// return wrong outputs. Bounded: the oldest entries are evicted first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <span>
#include <vector>

#include "vyre/fingerprint.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::kit::detail {

class OutputCache {
 public:
  static constexpr std::size_t kMaxEntries = 64;
  static constexpr std::uint64_t kMaxBytes = 256ull << 20;  // inputs + outputs of all entries

  // Copy the outputs of an earlier identical dispatch into `outputs`; false on a miss.
  bool lookup(std::span<const Bytes> inputs, std::span<const OutputTarget> outputs);
  // Remember the outputs a dispatch just wrote (skipped when one entry alone exceeds kMaxBytes).
  void store(std::span<const Bytes> inputs, std::span<const OutputTarget> outputs);

 private:
  struct Entry {
    Sha256 key;
    std::vector<std::vector<std::byte>> inputs;
    std::vector<std::vector<std::byte>> outputs;
    std::uint64_t bytes = 0;
  };

  static Sha256 key_of(std::span<const Bytes> inputs);
  static bool same_inputs(const Entry& entry, std::span<const Bytes> inputs);
  void evict_until_fits(std::uint64_t incoming_bytes);

  std::mutex mutex_;
  std::deque<Entry> entries_;  // oldest first
  std::uint64_t bytes_ = 0;
};

}  // namespace vyre::kit::detail
