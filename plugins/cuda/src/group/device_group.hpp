// A communicator over cuda instances (VYRE_EXTENSION_DEVICE_GROUP's group_create /
// group_collective / group_release): one NCCL rank per member instance, all in this process,
// created together (ncclCommInitRank for each rank inside ncclGroupStart/End, each under its
// member's context). A collective is queued on one stream per member, after the earlier work on
// that member's buffers (ResidentOrder) and before later work (the fence becomes the buffers'
// last operation); the members' NCCL calls are issued together inside one ncclGroupStart/End.
//
// NCCL reduces with sum, min and max only; and/or/xor of integers are exchanged (all_reduce:
// ncclAllGather; reduce_scatter: ncclSend/ncclRecv to every rank, an all-to-all) into a scratch
// block per member, then folded in rank order by BitwiseKernel on the same stream.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "group/bitwise_kernel.hpp"
#include "group/nccl_library.hpp"
#include "runtime/runtime.hpp"
#include "vyre/backend_abi.h"

namespace vyre::cuda {

// A collective's arguments, checked against the group's size (no buffer is looked at): the NCCL
// type, bytes per element, bytes each send and receive buffer needs.
struct CollectivePlan {
  std::uint32_t op = 0;
  std::uint32_t reduce = 0;
  bool bitwise = false;           // and/or/xor, and float sum_rank_order: exchange + BitwiseKernel
  std::uint32_t fold = 0;         // the fold's op (BitwiseKernel::launch): VYRE_REDUCE_AND/OR/XOR, kFoldSum*
  nccl::DataType type = 0;
  nccl::RedOp nccl_op = 0;
  std::uint32_t element_bytes = 0;
  std::uint64_t count = 0;
  std::uint64_t chunk_bytes = 0;  // count * element_bytes
  std::uint64_t send_bytes = 0;   // what each send buffer needs (broadcast: the root's)
  std::uint64_t recv_bytes = 0;
  int root = 0;
};

// `local`: the group's members in this process (the entries args' arrays must have); `ranks`: the
// group's size, over every process. Throws vyre::Error: VYRE_ERR_INVALID_ARGUMENT for an unknown
// op or reduction, a bitwise reduction of floats, a rank_count other than `local`, a root out of
// range, a size overflow or reserved != 0; VYRE_ERR_UNSUPPORTED for an element type collectives
// do not take.
CollectivePlan plan_collective(const vyre_collective_args& args, std::uint32_t local, std::uint32_t ranks);

class DeviceGroup {
 public:
  // See group_create (backend_abi.h): every rank in this process.
  explicit DeviceGroup(std::span<vyre_backend* const> members);
  // See group_join (backend_abi.h): rank `rank` of `ranks`, the others in other processes.
  DeviceGroup(vyre_backend* member, const nccl::UniqueId& id, std::uint32_t ranks, std::uint32_t rank);
  ~DeviceGroup();  // waits for the queued collectives, destroys the communicators
  DeviceGroup(const DeviceGroup&) = delete;
  DeviceGroup& operator=(const DeviceGroup&) = delete;

  std::uint32_t size() const { return ranks_; }  // ranks over every process
  // See group_collective (backend_abi.h).
  void collective(const vyre_collective_args& args);

 private:
  struct Member {
    const vyre_backend* handle = nullptr;
    std::uint32_t rank = 0;  // in the group
    std::shared_ptr<Runtime> runtime;
    nccl::Comm comm = nullptr;
    EventRef last;                          // the fence of the last collective queued
    std::unique_ptr<BitwiseKernel> kernel;  // loaded on the first bitwise reduction
  };

  // Throws VYRE_ERR_DEVICE when a communicator reports an asynchronous error (and breaks the group).
  void check_async_errors();
  [[noreturn]] void break_group(const std::string& problem);
  // Destroy (or abort) every member's communicator, all inside one ncclGroupStart/End.
  void end_communicators(bool abort) noexcept;
  // Add the member instance `handle` (a cuda instance, on a device no earlier member uses).
  void add_member(vyre_backend* handle, std::uint32_t rank);
  // ncclCommInitRank for every member (one ncclGroupStart/End); aborts them all on failure.
  void init_communicators(const nccl::UniqueId& id);

  const nccl::Library& nccl_;
  std::vector<Member> members_;  // this process's, in rank order
  std::uint32_t ranks_ = 0;
  std::mutex mutex_;  // serialises collectives: every rank must see them in one order
  bool broken_ = false;
};

}  // namespace vyre::cuda
