// A device group (SPEC §11): instances of one backend, one per device, driven together by the
// host. A group dispatch splits the grid along x into contiguous workgroup ranges in rank order
// (vyre/shard.hpp); every member runs its range with the global WorkgroupId / InvocationId /
// NumWorkgroups through the backend's VYRE_EXTENSION_DEVICE_GROUP extension, so the result equals
// the single-device dispatch bit for bit; outputs are gathered to the host (dispatch) or left
// resident per device (dispatch_resident). Collectives (all_reduce, all_gather, reduce_scatter,
// broadcast) run on resident buffers of the members through the extension's communicator (cuda:
// NCCL, loaded at run time). docs/MULTI_GPU.md describes the design.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "vyre/backend.hpp"
#include "vyre/geometry.hpp"
#include "vyre/shard.hpp"
#include "vyre/types.hpp"

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

// One resident buffer per member, in rank order (buffers[r] belongs to member(r)).
using GroupBuffers = std::vector<ResidentBuffer>;

// One declared (non-workgroup) buffer of a resident group dispatch (Group::dispatch_resident):
// one resident buffer per member in rank order, each bound by its own member, or host bytes that
// every member reads (read and uniform buffers only).
struct GroupBinding {
  GroupBuffers resident;
  Bytes host;
  bool is_host = false;

  static GroupBinding of(GroupBuffers buffers) { return GroupBinding{std::move(buffers), {}, false}; }
  static GroupBinding host_bytes(Bytes bytes) { return GroupBinding{{}, bytes, true}; }
};

// Where the work of a sharded dispatch went: the resolved geometry and every rank's workgroups
// along x (over all ranks of the group, in every process), in rank order.
struct GroupShards {
  LaunchGeometry geometry;
  std::vector<ShardRange> ranges;

  // The elements of a buffer of `count` elements that rank `rank` wrote when each invocation
  // along x writes `per_invocation` of them (vyre::shard_elements).
  IndexRange elements(std::uint32_t rank, std::uint64_t per_invocation, std::uint64_t count) const {
    return shard_elements(geometry, ranges.at(rank), per_invocation, count);
  }
};

// A collective's reduction (all_reduce, reduce_scatter). sum wraps for integers; the bitwise ones
// take integer elements only (NCCL has none: they are exchanged and folded exactly on each member).
enum class Reduce : std::uint32_t {
  sum = VYRE_REDUCE_SUM,
  min = VYRE_REDUCE_MIN,
  max = VYRE_REDUCE_MAX,
  bit_and = VYRE_REDUCE_AND,
  bit_or = VYRE_REDUCE_OR,
  bit_xor = VYRE_REDUCE_XOR,
  // A sum in rank order, ((x[0] + x[1]) + x[2]) + ..., each addition rounded to nearest even:
  // float results are the same bytes whatever algorithm NCCL picks (the data is exchanged and
  // added on each member, at size times the traffic of sum). Integers: the same as sum.
  sum_rank_order = VYRE_REDUCE_SUM_RANK_ORDER,
};

namespace detail {
struct Communicator;
struct BufferPlan;
}

class Group {
 public:
  // `members` in rank order: instances of one plugin (the same function table), normally one per
  // device (two on one device work, without a speed-up), each with the device-group extension
  // (Backend::can_shard). Throws vyre::Error VYRE_ERR_INVALID_ARGUMENT for none or a mix of
  // plugins, VYRE_ERR_UNSUPPORTED for a backend without the extension.
  explicit Group(std::vector<Backend> members);

  // Join rank `rank` of a group of `ranks` ranks that spans processes (one process per device, as
  // torchrun/mpirun run them), with this process's instance `member`. Rank 0 makes the group's id
  // and writes it to `id_file` (which must not exist: a stale id would make the others join a
  // dead group; VYRE_ERR_INVALID_ARGUMENT); the others wait for the file (up to `timeout_ms`, then
  // VYRE_ERR_TIMEOUT); every rank then blocks until all have joined, and rank 0 removes the file.
  // The group has one member here (size() 1, ranks() `ranks`): collectives take this process's
  // buffer and sizes count every rank; dispatch runs this rank's share of the grid and gives every
  // rank the whole outputs (through collectives); dispatch_resident leaves each rank's share in
  // its buffers. Every rank must make the same calls in the same order. Needs the backend's
  // collectives (cuda: NCCL).
  static Group join(Backend member, const std::string& id_file, std::uint32_t ranks, std::uint32_t rank,
                    std::uint32_t timeout_ms = 60000);

  std::size_t size() const { return members_.size(); }  // members in this process
  std::uint32_t ranks() const { return ranks_; }         // ranks over every process
  std::uint32_t first_rank() const { return first_rank_; }  // member(i) is rank first_rank() + i
  const Backend& member(std::size_t rank) const { return members_.at(rank); }

  // Dispatch `program` across the group, as Backend::dispatch on one device: `inputs` are the
  // program's read/uniform/read_write buffers in declaration order; the result holds its
  // read_write/output buffers (trimmed to output_byte_range). Every member holds full-size buffers
  // (split inputs save transfers, not device memory). Synchronous; thread-safe as the members'
  // calls are. On a group that spans processes (join) every rank calls it with the same program,
  // inputs (each reads only its share of split ones) and placements; this process runs its rank's
  // range, and the ranks' parts of every output are exchanged with all_gather (gathered) or
  // all_reduce (summed), so every rank returns the single-device result. Throws vyre::Error:
  // VYRE_ERR_INVALID_ARGUMENT for a placement that does not fit its buffer, VYRE_ERR_UNSUPPORTED
  // for grid_sync programs and fixpoint_iterations > 1.
  std::vector<ByteVector> dispatch(const vyre::Program& program, std::span<const Bytes> inputs,
                                   const Placements& placements = {}, const DispatchConfig& config = {}) const;

  // Sharded dispatch on resident buffers, with the outputs left resident per device: member r runs
  // its share of the grid (rank first_rank() + r of ranks(); Group::dispatch splits it the same
  // way) with bindings[k].resident[r] bound to the program's k-th non-workgroup buffer, so each
  // member's buffers hold the elements its invocations wrote and nothing is gathered. The buffers
  // stay usable by the next dispatch_resident, by collectives (all_gather, all_reduce) and by
  // download; GroupShards says which elements each rank wrote. Every member's buffer of one
  // binding must have the same size (the whole buffer: shards index it globally). Runs the members
  // concurrently and returns when all finished. Works on groups that span processes (each process
  // runs its rank's share). Throws vyre::Error: VYRE_ERR_INVALID_ARGUMENT for bindings that do not
  // fit (count, sizes, a buffer of another member, host bytes for a written buffer),
  // VYRE_ERR_UNSUPPORTED for grid_sync programs and fixpoint_iterations > 1.
  GroupShards dispatch_resident(const vyre::Program& program, std::span<const GroupBinding> bindings,
                                const DispatchConfig& config = {}) const;

  // ---- collectives (docs/MULTI_GPU.md, "Collectives") ----
  // The members' communicator is created by the first collective, or by connect(); copies of a
  // Group share it, and the last copy releases it (after its queued collectives). Creating it
  // needs the collective library (cuda: NCCL; missing: VYRE_ERR_NO_DEVICE naming the paths tried
  // and the Fix) and members on distinct devices (VYRE_ERR_INVALID_ARGUMENT); a plugin whose
  // extension predates collectives gives VYRE_ERR_UNSUPPORTED.
  void connect() const;
  // True when the members' plugin has collectives (no library is loaded to answer).
  bool has_collectives() const;

  // A zeroed resident buffer of `byte_len` bytes on every member.
  GroupBuffers alloc(std::uint64_t byte_len) const;
  // data[r] into buffers[r] at offset 0, for every member.
  void upload(const GroupBuffers& buffers, std::span<const Bytes> data) const;
  // The first `byte_len` bytes of every member's buffer, after the work queued on it.
  std::vector<ByteVector> download(const GroupBuffers& buffers, std::uint64_t byte_len) const;

  // Collectives over `count` elements of type `element` (u32, i32, u64, i64, f32, f64), queued on
  // every member of this process (size() buffers per list; sizes count ranks() ranks),
  // every member after the earlier work on its buffers; later work on them (downloads, resident
  // dispatches) runs after the collective. Throws vyre::Error as group_collective (backend_abi.h)
  // reports, and VYRE_ERR_INVALID_ARGUMENT for a buffer list that is not one live buffer per
  // member, each its member's.
  //   all_reduce:     recv[r][i] = op over ranks q of send[q][i], i < count; send may be recv
  //   all_gather:     recv[r][q * count + i] = send[q][i]  (recv holds ranks() * count)
  //   reduce_scatter: recv[r][i] = op over q of send[q][r * count + i]  (send holds ranks() * count)
  //   broadcast:      recv[r][i] = send[root][i]; send may be recv
  // Float sums (Reduce::sum) add in an order NCCL chooses: fixed for a given group size, rank order
  // and NCCL algorithm (pin it with NCCL_ALGO=Ring NCCL_PROTO=Simple; docs/MULTI_GPU.md).
  // Reduce::sum_rank_order adds in rank order on every member, whatever NCCL's algorithm.
  void all_reduce(const GroupBuffers& send, const GroupBuffers& recv, Type element, Reduce op,
                  std::uint64_t count) const;
  void all_gather(const GroupBuffers& send, const GroupBuffers& recv, Type element, std::uint64_t count) const;
  void reduce_scatter(const GroupBuffers& send, const GroupBuffers& recv, Type element, Reduce op,
                      std::uint64_t count) const;
  void broadcast(const GroupBuffers& send, const GroupBuffers& recv, Type element, std::uint64_t count,
                 std::uint32_t root) const;

 private:
  void collective(std::uint32_t op, const GroupBuffers& send, const GroupBuffers& recv, Type element,
                  std::uint32_t reduce, std::uint64_t count, std::int32_t root, const char* name) const;
  // Group::dispatch across processes: every rank's share of the outputs to every rank.
  void exchange_outputs(const std::vector<detail::BufferPlan>& plans, const LaunchGeometry& geometry,
                        const std::vector<ShardRange>& shards, const std::map<std::size_t, ByteVector>& summed,
                        std::vector<ByteVector>& outputs) const;
  // The communicator, created on first use.
  const detail::Communicator& communicator() const;

  std::vector<Backend> members_;
  std::uint32_t ranks_ = 0;
  std::uint32_t first_rank_ = 0;
  bool spans_processes_ = false;
  struct Shared;
  std::shared_ptr<Shared> shared_;  // the lazily created communicator, shared by copies
};

}  // namespace vyre::host
