// The pipeline output cache.
#include "output_cache.hpp"

#include <algorithm>
#include <cstring>

namespace vyre::kit::detail {

namespace {

std::span<const std::uint8_t> as_u8(Bytes bytes) {
  return {reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()};
}

std::uint64_t total_bytes(std::span<const Bytes> inputs, std::span<const OutputTarget> outputs) {
  std::uint64_t total = 0;
  for (Bytes input : inputs) total += input.size();
  for (const OutputTarget& output : outputs) total += output.dst.size();
  return total;
}

}  // namespace

Sha256 OutputCache::key_of(std::span<const Bytes> inputs) {
  Sha256Builder hasher;
  hasher.add_u64(inputs.size());
  for (Bytes input : inputs) {
    hasher.add_u64(input.size());
    hasher.add(as_u8(input));
  }
  return hasher.finish();
}

bool OutputCache::same_inputs(const Entry& entry, std::span<const Bytes> inputs) {
  if (entry.inputs.size() != inputs.size()) return false;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::vector<std::byte>& stored = entry.inputs[i];
    if (stored.size() != inputs[i].size()) return false;
    if (!std::equal(stored.begin(), stored.end(), inputs[i].begin())) return false;
  }
  return true;
}

bool OutputCache::lookup(std::span<const Bytes> inputs, std::span<const OutputTarget> outputs) {
  const Sha256 key = key_of(inputs);
  std::lock_guard lock(mutex_);
  for (const Entry& entry : entries_) {
    if (entry.key != key || !same_inputs(entry, inputs)) continue;
    if (entry.outputs.size() != outputs.size()) return false;
    for (std::size_t i = 0; i < outputs.size(); ++i)
      if (entry.outputs[i].size() != outputs[i].dst.size()) return false;
    for (std::size_t i = 0; i < outputs.size(); ++i)
      if (!outputs[i].dst.empty())
        std::memcpy(outputs[i].dst.data(), entry.outputs[i].data(), outputs[i].dst.size());
    return true;
  }
  return false;
}

void OutputCache::evict_until_fits(std::uint64_t incoming_bytes) {
  while (!entries_.empty() &&
         (entries_.size() >= kMaxEntries || bytes_ + incoming_bytes > kMaxBytes)) {
    bytes_ -= entries_.front().bytes;
    entries_.pop_front();
  }
}

void OutputCache::store(std::span<const Bytes> inputs, std::span<const OutputTarget> outputs) {
  const std::uint64_t bytes = total_bytes(inputs, outputs);
  if (bytes > kMaxBytes) return;
  Entry entry;
  entry.key = key_of(inputs);
  entry.bytes = bytes;
  for (Bytes input : inputs) entry.inputs.emplace_back(input.begin(), input.end());
  for (const OutputTarget& output : outputs)
    entry.outputs.emplace_back(output.dst.begin(), output.dst.end());
  std::lock_guard lock(mutex_);
  evict_until_fits(bytes);
  bytes_ += bytes;
  entries_.push_back(std::move(entry));
}

}  // namespace vyre::kit::detail
