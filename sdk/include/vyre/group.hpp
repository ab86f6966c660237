// A device group (SPEC §11): instances of one backend, one per device, driven together by the
// host. A group dispatch splits the grid along x into contiguous workgroup ranges in rank order
// (vyre/shard.hpp); every member runs its range with the global WorkgroupId / InvocationId /
// NumWorkgroups through the backend's VYRE_EXTENSION_DEVICE_GROUP extension, so the result equals
// the single-device dispatch bit for bit. docs/MULTI_GPU.md describes the design.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "vyre/backend.hpp"

namespace vyre::host {

// How a group dispatch places one buffer on the members.
struct Placement {
  enum class Kind : std::uint8_t {
    replicated,  // read/uniform: every member gets all of it (the default for those)
    split,       // read: each member gets only its shard's elements (at their global offsets);
                 // read_write: the same, and each member's elements are gathered back
    gathered,    // output: each member's shard's elements are gathered into the result
    summed,      // output of integers: the members' buffers are added element by element
                 // (wrapping), e.g. a histogram built with atomic adds from zero
  };
  Kind kind = Kind::replicated;
  std::uint64_t per_invocation = 1;  // split/gathered: elements per invocation along x

  static Placement replicate() { return {Kind::replicated, 1}; }
  static Placement split(std::uint64_t per_invocation = 1) { return {Kind::split, per_invocation}; }
  static Placement gather(std::uint64_t per_invocation = 1) { return {Kind::gathered, per_invocation}; }
  static Placement sum() { return {Kind::summed, 1}; }
};

// Placements by buffer name. Read and uniform buffers not named are replicated; every output and
// read_write buffer must be named (read_write: split; output: gathered or summed).
using Placements = std::map<std::string, Placement, std::less<>>;

class Group {
 public:
  // `members` in rank order: instances of one plugin (the same function table), normally one per
  // device (two on one device work, without a speed-up), each with the device-group extension
  // (Backend::can_shard). Throws vyre::Error VYRE_ERR_INVALID_ARGUMENT for none or a mix of
  // plugins, VYRE_ERR_UNSUPPORTED for a backend without the extension.
  explicit Group(std::vector<Backend> members);

  std::size_t size() const { return members_.size(); }
  const Backend& member(std::size_t rank) const { return members_.at(rank); }

  // Dispatch `program` across the group, as Backend::dispatch on one device: `inputs` are the
  // program's read/uniform/read_write buffers in declaration order; the result holds its
  // read_write/output buffers (trimmed to output_byte_range). Every member holds full-size buffers
  // (split inputs save transfers, not device memory). Synchronous; thread-safe as the members'
  // calls are. Throws vyre::Error: VYRE_ERR_INVALID_ARGUMENT for a placement that does not fit
  // its buffer, VYRE_ERR_UNSUPPORTED for grid_sync programs and fixpoint_iterations > 1.
  std::vector<ByteVector> dispatch(const vyre::Program& program, std::span<const Bytes> inputs,
                                   const Placements& placements = {}, const DispatchConfig& config = {}) const;

 private:
  std::vector<Backend> members_;
};

}  // namespace vyre::host
