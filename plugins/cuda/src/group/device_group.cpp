#include "group/device_group.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "runtime/cuda_backend.hpp"
#include "runtime/cuda_resident.hpp"
#include "vyre/error.hpp"
#include "vyre/plugin_kit.hpp"
#include "vyre/types.hpp"

namespace vyre::cuda {
namespace {

constexpr const char* kRecreateFix =
    "release the group and create it again (after a device error, recreate the member instances too); "
    "NCCL_DEBUG=WARN prints NCCL's own account";

const char* op_name(std::uint32_t op) {
  switch (op) {
    case VYRE_COLLECTIVE_ALL_REDUCE: return "all_reduce";
    case VYRE_COLLECTIVE_ALL_GATHER: return "all_gather";
    case VYRE_COLLECTIVE_REDUCE_SCATTER: return "reduce_scatter";
    case VYRE_COLLECTIVE_BROADCAST: return "broadcast";
    default: return "collective";
  }
}

const char* reduce_name(std::uint32_t reduce) {
  switch (reduce) {
    case VYRE_REDUCE_SUM: return "sum";
    case VYRE_REDUCE_MIN: return "min";
    case VYRE_REDUCE_MAX: return "max";
    case VYRE_REDUCE_AND: return "and";
    case VYRE_REDUCE_OR: return "or";
    case VYRE_REDUCE_XOR: return "xor";
    case VYRE_REDUCE_SUM_RANK_ORDER: return "sum_rank_order";
    default: return "?";
  }
}

// The NCCL type of a vyre type code, or nullopt for one collectives do not take.
std::optional<nccl::DataType> nccl_type(std::uint32_t element) {
  switch (static_cast<Type>(element)) {
    case Type::U32: return nccl::ncclUint32;
    case Type::I32: return nccl::ncclInt32;
    case Type::U64: return nccl::ncclUint64;
    case Type::I64: return nccl::ncclInt64;
    case Type::F32: return nccl::ncclFloat32;
    case Type::F64: return nccl::ncclFloat64;
    default: return std::nullopt;
  }
}

std::string type_text(std::uint32_t element) {
  if (!is_valid_type(static_cast<Type>(element))) return fmt::format("type code {}", element);
  return std::string(type_name(static_cast<Type>(element)));
}

std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, const char* op) {
  if (b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b)
    fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("{}: the count overflows 64-bit byte sizes", op),
         "pass the element count of the buffers, not a byte count or a negative number");
  return a * b;
}

}  // namespace

CollectivePlan plan_collective(const vyre_collective_args& a, std::uint32_t local, std::uint32_t ranks) {
  CollectivePlan plan;
  plan.op = a.op;
  const char* name = op_name(a.op);
  if (a.op < VYRE_COLLECTIVE_ALL_REDUCE || a.op > VYRE_COLLECTIVE_BROADCAST)
    fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("collective op {} is unknown", a.op),
         "pass VYRE_COLLECTIVE_ALL_REDUCE, _ALL_GATHER, _REDUCE_SCATTER or _BROADCAST");
  if (a.reserved != 0)
    fail(VYRE_ERR_INVALID_ARGUMENT, "vyre_collective_args.reserved is not 0", "zero-initialise the struct");
  if (a.rank_count != local)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         fmt::format("{}: {} buffers per direction for a group with {} members in this process", name, a.rank_count,
                     local),
         "pass one send and one receive buffer per member of this process, in rank order");
  const std::optional<nccl::DataType> type = nccl_type(a.element);
  if (!type)
    fail(VYRE_ERR_UNSUPPORTED, fmt::format("{} of {} elements is not supported", name, type_text(a.element)),
         "use u32, i32, u64, i64, f32 or f64 elements (widen narrow types first)");
  plan.type = *type;
  plan.element_bytes = byte_size(static_cast<Type>(a.element));
  const bool reduces = a.op == VYRE_COLLECTIVE_ALL_REDUCE || a.op == VYRE_COLLECTIVE_REDUCE_SCATTER;
  if (reduces) {
    plan.reduce = a.reduce;
    switch (a.reduce) {
      case VYRE_REDUCE_SUM: plan.nccl_op = nccl::ncclSum; break;
      case VYRE_REDUCE_MIN: plan.nccl_op = nccl::ncclMin; break;
      case VYRE_REDUCE_MAX: plan.nccl_op = nccl::ncclMax; break;
      case VYRE_REDUCE_AND:
      case VYRE_REDUCE_OR:
      case VYRE_REDUCE_XOR: plan.bitwise = true; break;
      case VYRE_REDUCE_SUM_RANK_ORDER:
        // Integer sums are exact in any order: NCCL's. Floats: exchanged, then added in rank order.
        if (is_float(static_cast<Type>(a.element))) plan.bitwise = true;
        else plan.nccl_op = nccl::ncclSum;
        break;
      default:
        fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("{}: reduction {} is unknown", name, a.reduce),
             "pass VYRE_REDUCE_SUM, _MIN, _MAX, _AND, _OR, _XOR or _SUM_RANK_ORDER");
    }
    if (plan.bitwise)
      plan.fold = a.reduce != VYRE_REDUCE_SUM_RANK_ORDER ? a.reduce
                  : static_cast<Type>(a.element) == Type::F32 ? kFoldSumF32
                                                              : kFoldSumF64;
    if (plan.bitwise && plan.fold != kFoldSumF32 && plan.fold != kFoldSumF64 && is_float(static_cast<Type>(a.element)))
      fail(VYRE_ERR_INVALID_ARGUMENT,
           fmt::format("{}: a bitwise {} of {} elements is not defined", name, reduce_name(a.reduce), type_text(a.element)),
           "reduce floats with sum, min or max, or pass the bits as u32/u64 elements");
  }
  if (a.op == VYRE_COLLECTIVE_BROADCAST && (a.root < 0 || static_cast<std::uint32_t>(a.root) >= ranks))
    fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("broadcast: root {} is not a rank of a group of {}", a.root, ranks),
         fmt::format("pass a root from 0 to {}", ranks - 1));
  plan.root = a.op == VYRE_COLLECTIVE_BROADCAST ? a.root : 0;
  plan.count = a.count;
  plan.chunk_bytes = checked_mul(a.count, plan.element_bytes, name);
  const std::uint64_t all = checked_mul(plan.chunk_bytes, ranks, name);
  plan.send_bytes = a.op == VYRE_COLLECTIVE_REDUCE_SCATTER ? all : plan.chunk_bytes;
  plan.recv_bytes = a.op == VYRE_COLLECTIVE_ALL_GATHER ? all : plan.chunk_bytes;
  return plan;
}

void DeviceGroup::add_member(vyre_backend* handle, std::uint32_t rank) {
  std::shared_ptr<kit::BackendImpl> impl = kit::backend_of(handle);
  auto* backend = dynamic_cast<CudaBackend*>(impl.get());
  if (backend == nullptr)
    fail(VYRE_ERR_INVALID_HANDLE, fmt::format("group: member {} is not a cuda instance", members_.size()),
         "make every member of a group from the cuda plugin");
  Member m;
  m.handle = handle;
  m.rank = rank;
  m.runtime = backend->shared_runtime();
  for (std::size_t q = 0; q < members_.size(); ++q) {
    if (members_[q].runtime->device().ordinal == m.runtime->device().ordinal)
      fail(VYRE_ERR_INVALID_ARGUMENT,
           fmt::format("group_create: members {} and {} are both on CUDA device {}; NCCL needs one member per device",
                       q, members_.size(), m.runtime->device().ordinal),
           "create one instance per device (CreateOptions::device_ordinal 0, 1, ...) for a group that runs "
           "collectives");
  }
  members_.push_back(std::move(m));
}

void DeviceGroup::init_communicators(const nccl::UniqueId& id) {
  const int n = static_cast<int>(ranks_);
  std::string problem;
  nccl::Result first_failure = nccl::ncclSuccess;
  nccl_.ncclGroupStart();
  for (Member& m : members_) {
    m.runtime->bind();  // NCCL takes the rank's device from the current context
    const nccl::Result made = nccl_.ncclCommInitRank(&m.comm, n, id, static_cast<int>(m.rank));
    if (made != nccl::ncclSuccess && first_failure == nccl::ncclSuccess) {
      first_failure = made;
      problem = fmt::format("ncclCommInitRank(rank {} of {}, CUDA device {}) failed: {}", m.rank, n,
                            m.runtime->device().ordinal, nccl_.describe(made, nullptr));
    }
  }
  const nccl::Result ended = nccl_.ncclGroupEnd();
  if (ended != nccl::ncclSuccess && first_failure == nccl::ncclSuccess) {
    first_failure = ended;
    problem = fmt::format("ncclGroupEnd after ncclCommInitRank of {} ranks failed: {}", members_.size(),
                          nccl_.describe(ended, nullptr));
  }
  if (first_failure != nccl::ncclSuccess) {
    end_communicators(true);
    fail(VYRE_ERR_DEVICE, fmt::format("creating an NCCL communicator over {} devices with NCCL {} ({}): {}", n,
                                      nccl_.version_text(), nccl_.path(), problem),
         "check the devices (nvidia-smi) and rerun with NCCL_DEBUG=WARN for NCCL's account");
  }
}

DeviceGroup::DeviceGroup(std::span<vyre_backend* const> members) : nccl_(nccl::Library::open()) {
  if (members.empty())
    fail(VYRE_ERR_INVALID_ARGUMENT, "group_create: no members", "pass one cuda instance per device, in rank order");
  ranks_ = static_cast<std::uint32_t>(members.size());
  for (std::size_t r = 0; r < members.size(); ++r) add_member(members[r], static_cast<std::uint32_t>(r));
  nccl::UniqueId id{};
  nccl_.check(nccl_.ncclGetUniqueId(&id), "ncclGetUniqueId", nullptr, kRecreateFix);
  init_communicators(id);
}

DeviceGroup::DeviceGroup(vyre_backend* member, const nccl::UniqueId& id, std::uint32_t ranks, std::uint32_t rank)
    : nccl_(nccl::Library::open()) {
  if (ranks == 0 || rank >= ranks)
    fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("group_join: rank {} of {} ranks", rank, ranks),
         "pass the group's size and this process's rank, from 0 to the size - 1");
  ranks_ = ranks;
  add_member(member, rank);
  init_communicators(id);
}

DeviceGroup::~DeviceGroup() {
  std::lock_guard lock(mutex_);
  for (Member& m : members_) {
    if (!m.runtime->bind_quietly()) continue;
    if (m.last) {
      try {
        const drv::CUevent event = m.last->get();
        if (m.runtime->driver().cuEventSynchronize(event) != drv::CUDA_SUCCESS) broken_ = true;
      } catch (const Error&) {
        broken_ = true;
      }
    }
  }
  for (Member& m : members_) {
    m.last.reset();
    m.kernel.reset();
  }
  end_communicators(broken_);
}

void DeviceGroup::end_communicators(bool abort) noexcept {
  // One group, as for their creation: a thread that ends several ranks' communicators one after
  // another could wait in the first for the others (NCCL finalizes the ranks of a process together).
  nccl_.ncclGroupStart();
  for (Member& m : members_) {
    if (m.comm == nullptr) continue;
    m.runtime->bind_quietly();
    if (abort) {
      nccl_.ncclCommAbort(m.comm);
    } else {
      nccl_.ncclCommDestroy(m.comm);
    }
    m.comm = nullptr;
  }
  nccl_.ncclGroupEnd();
}

void DeviceGroup::break_group(const std::string& problem) {
  broken_ = true;
  end_communicators(true);
  fail(VYRE_ERR_DEVICE, problem, kRecreateFix);
}

void DeviceGroup::check_async_errors() {
  for (std::size_t r = 0; r < members_.size(); ++r) {
    nccl::Result async = nccl::ncclSuccess;
    const nccl::Result got = nccl_.ncclCommGetAsyncError(members_[r].comm, &async);
    if (got != nccl::ncclSuccess)
      break_group(fmt::format("ncclCommGetAsyncError(rank {}) failed: {}", r, nccl_.describe(got, members_[r].comm)));
    if (async != nccl::ncclSuccess && async != nccl::ncclInProgress)
      break_group(fmt::format("the group's NCCL communicator failed (rank {}): {}", r,
                              nccl_.describe(async, members_[r].comm)));
  }
}

namespace {

// One rank's part of a queued collective.
struct RankWork {
  std::shared_ptr<kit::DeviceBuffer> send_handle, recv_handle;  // keep the buffers alive while queuing
  CudaResident* send = nullptr;
  CudaResident* recv = nullptr;
  StreamLease stream;
  EventRef fence;
  Block scratch;  // bitwise reductions: ranks * chunk bytes
  std::unique_ptr<ResidentOrder> order;
};

std::shared_ptr<kit::DeviceBuffer> member_buffer(const vyre_backend* member, vyre_resident* const* list, std::size_t r,
                                                 const char* which, const char* op) {
  if (list == nullptr || list[r] == nullptr)
    fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("{}: {}[{}] is NULL", op, which, r),
         fmt::format("pass a resident buffer of member {} as {}[{}]", r, which, r));
  try {
    return kit::resident_of(member, list[r]);
  } catch (const Error& error) {
    if (error.code() != VYRE_ERR_INVALID_HANDLE) throw;
    fail(VYRE_ERR_INVALID_HANDLE,
         fmt::format("{}: {}[{}] is not a live resident buffer of member {} (the member's instance {})", op, which, r,
                     r, error.what()),
         fmt::format("pass buffers in rank order, each allocated by its own member (rank {} is member {})", r, r));
  }
}

void check_size(const kit::DeviceBuffer& buffer, std::uint64_t needed, std::size_t r, const char* which,
                const char* op, const CollectivePlan& plan, std::uint32_t ranks) {
  if (buffer.byte_len() >= needed) return;
  fail(VYRE_ERR_INVALID_ARGUMENT,
       fmt::format("{}: {}[{}] has {} bytes; {} elements of {} bytes over {} ranks need {}", op, which, r,
                   buffer.byte_len(), plan.count, plan.element_bytes, ranks, needed),
       fmt::format("allocate every {} buffer with at least {} bytes, or pass a smaller count", which, needed));
}

}  // namespace

void DeviceGroup::collective(const vyre_collective_args& args) {
  const std::uint32_t ranks = size();
  const auto local = static_cast<std::uint32_t>(members_.size());
  const CollectivePlan plan = plan_collective(args, local, ranks);
  const char* op = op_name(plan.op);
  std::vector<RankWork> work(local);
  for (std::uint32_t r = 0; r < local; ++r) {
    RankWork& w = work[r];
    const vyre_backend* member = members_[r].handle;
    const bool reads = plan.op != VYRE_COLLECTIVE_BROADCAST || static_cast<int>(members_[r].rank) == plan.root;
    if (reads || (args.send != nullptr && args.send[r] != nullptr)) {
      w.send_handle = member_buffer(member, args.send, r, "send", op);
      w.send = &cuda_resident(*w.send_handle);
      if (reads) check_size(*w.send_handle, plan.send_bytes, r, "send", op, plan, ranks);
    }
    w.recv_handle = member_buffer(member, args.recv, r, "recv", op);
    w.recv = &cuda_resident(*w.recv_handle);
    check_size(*w.recv_handle, plan.recv_bytes, r, "recv", op, plan, ranks);
    if (w.recv_handle->read_only())
      fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("{}: recv[{}] is read-only imported memory", op, r),
           "receive into a writable buffer");
    const bool in_place = w.send_handle == w.recv_handle;
    if (in_place && (plan.op == VYRE_COLLECTIVE_ALL_GATHER || plan.op == VYRE_COLLECTIVE_REDUCE_SCATTER))
      fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("{}: send[{}] and recv[{}] are one buffer", op, r, r),
           fmt::format("{} needs distinct send and receive buffers", op));
  }

  std::lock_guard lock(mutex_);
  if (broken_)
    fail(VYRE_ERR_DEVICE, fmt::format("{}: the group's NCCL communicator failed earlier", op), kRecreateFix);
  if (plan.count == 0) return;
  check_async_errors();

  // Streams, fences and scratch per rank, then the order locks in one global order (by runtime
  // address), so groups over the same instances in other rank orders cannot deadlock.
  for (std::uint32_t r = 0; r < local; ++r) {
    RankWork& w = work[r];
    Runtime& rt = *members_[r].runtime;
    rt.bind();
    rt.deferred().reap();
    CudaResident* touched[] = {w.send, w.recv};
    w.stream = rt.streams().acquire(common_last_stream(rt, touched));
    w.fence = rt.events().acquire();
    if (plan.bitwise) {
      w.scratch = rt.device_memory().acquire(plan.chunk_bytes * ranks);
      if (!members_[r].kernel) members_[r].kernel = std::make_unique<BitwiseKernel>(rt);
    }
  }
  std::vector<std::uint32_t> lock_order(local);
  std::iota(lock_order.begin(), lock_order.end(), 0u);
  std::sort(lock_order.begin(), lock_order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::less<const Runtime*>()(members_[a].runtime.get(), members_[b].runtime.get());
  });
  for (std::uint32_t r : lock_order)
    work[r].order = std::make_unique<ResidentOrder>(*members_[r].runtime, work[r].stream.get(), 2);
  for (std::uint32_t r = 0; r < local; ++r) {  // cross-stream waits only: nothing is queued yet
    RankWork& w = work[r];
    members_[r].runtime->bind();
    if (w.send != nullptr) w.order->use(*w.send);
    w.order->use(*w.recv);
  }

  // The NCCL calls of every rank, in one group. After the first failure nothing more is issued.
  std::string problem;
  auto issue = [&](nccl::Result result, const char* call, std::uint32_t r) {
    if (result == nccl::ncclSuccess || !problem.empty()) return;
    problem = fmt::format("{} ({} of {} {}, rank {} of {}) failed: {}", call, op, plan.count, type_text(args.element),
                          members_[r].rank, ranks, nccl_.describe(result, members_[r].comm));
  };
  const std::uint64_t chunk = plan.chunk_bytes;
  nccl_.ncclGroupStart();
  for (std::uint32_t r = 0; r < local && problem.empty(); ++r) {
    RankWork& w = work[r];
    Member& m = members_[r];
    m.runtime->bind();
    const drv::CUstream s = w.stream.get();
    const auto* send = w.send != nullptr ? reinterpret_cast<const void*>(static_cast<std::uintptr_t>(w.send->pointer())) : nullptr;
    auto* recv = reinterpret_cast<void*>(static_cast<std::uintptr_t>(w.recv->pointer()));
    auto* scratch = reinterpret_cast<unsigned char*>(static_cast<std::uintptr_t>(w.scratch.address()));
    switch (plan.op) {
      case VYRE_COLLECTIVE_ALL_REDUCE:
        if (plan.bitwise) {
          issue(nccl_.ncclAllGather(send, scratch, chunk, nccl::ncclUint8, m.comm, s), "ncclAllGather", r);
        } else {
          issue(nccl_.ncclAllReduce(send, recv, plan.count, plan.type, plan.nccl_op, m.comm, s), "ncclAllReduce", r);
        }
        break;
      case VYRE_COLLECTIVE_REDUCE_SCATTER:
        if (plan.bitwise) {  // all-to-all: chunk q of every rank's send goes to rank q
          for (std::uint32_t q = 0; q < ranks; ++q) {
            issue(nccl_.ncclSend(static_cast<const unsigned char*>(send) + q * chunk, chunk, nccl::ncclUint8,
                                 static_cast<int>(q), m.comm, s),
                  "ncclSend", r);
            issue(nccl_.ncclRecv(scratch + q * chunk, chunk, nccl::ncclUint8, static_cast<int>(q), m.comm, s),
                  "ncclRecv", r);
          }
        } else {
          issue(nccl_.ncclReduceScatter(send, recv, plan.count, plan.type, plan.nccl_op, m.comm, s),
                "ncclReduceScatter", r);
        }
        break;
      case VYRE_COLLECTIVE_ALL_GATHER:
        issue(nccl_.ncclAllGather(send, recv, plan.count, plan.type, m.comm, s), "ncclAllGather", r);
        break;
      case VYRE_COLLECTIVE_BROADCAST:
        issue(nccl_.ncclBroadcast(send != nullptr ? send : recv, recv, plan.count, plan.type, plan.root, m.comm, s),
              "ncclBroadcast", r);
        break;
      default: break;
    }
  }
  const nccl::Result ended = nccl_.ncclGroupEnd();
  if (ended != nccl::ncclSuccess && problem.empty())
    problem = fmt::format("ncclGroupEnd ({} of {} {} over {} ranks) failed: {}", op, plan.count, type_text(args.element),
                          ranks, nccl_.describe(ended, nullptr));

  // Whatever was queued, every rank's fence ends it and becomes its buffers' last operation, so
  // later work (and frees) wait for it. The fold runs on the same stream, after the exchange.
  std::optional<Error> kernel_failure;
  for (std::uint32_t r = 0; r < local; ++r) {
    RankWork& w = work[r];
    Runtime& rt = *members_[r].runtime;
    rt.bind_quietly();
    try {
      if (plan.bitwise && problem.empty())
        members_[r].kernel->launch(w.stream.get(), w.scratch.address(), w.recv->pointer(), chunk / 4,
                                   ranks, plan.fold);
      rt.driver().check(rt.driver().cuEventRecord(w.fence->get(), w.stream.get()), "cuEventRecord(collective)");
    } catch (const Error& error) {
      if (!kernel_failure) kernel_failure = error;
      rt.drain(w.stream.get());
    }
    w.order->commit(w.fence);
    members_[r].last = w.fence;
    if (!w.scratch.empty()) {
      std::vector<Block> keep;
      keep.push_back(std::move(w.scratch));
      rt.deferred().park(w.fence, std::move(keep));
    }
  }
  if (!problem.empty()) break_group(problem);
  if (kernel_failure) throw *kernel_failure;
}

}  // namespace vyre::cuda
