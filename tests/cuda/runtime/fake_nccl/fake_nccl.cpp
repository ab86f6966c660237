// The fake NCCL (see fake_nccl.h). Signatures follow plugins/cuda/src/group/nccl_api.hpp.
#include "fake_nccl.h"

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

#include "fake_driver/fake_cuda.h"
#include "group/nccl_api.hpp"

namespace nccl = vyre::cuda::nccl;
using nccl::Result;

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

struct Clique;

struct Comm {
  Clique* clique = nullptr;
  int rank = 0;
  int device = 0;
  bool destroyed = false;
  std::uint64_t collectives = 0;              // collectives posted so far
  std::map<int, std::uint64_t> sent, received;  // per peer: sends / receives posted so far
};

enum class Kind { AllReduce, ReduceScatter, AllGather, Broadcast, SendRecv };

// One rank's part of an operation.
struct Post {
  Comm* comm = nullptr;
  Kind kind = Kind::AllReduce;
  const void* send = nullptr;
  void* recv = nullptr;
  std::size_t count = 0;  // elements as the call gave them
  nccl::DataType type = 0;
  nccl::RedOp op = 0;
  int root = 0;
  void* stream = nullptr;
  std::uint64_t position = 0;  // 0 until its group ended and its host operation was queued
};

// The posts that move data together: every rank's k-th collective, or one send with its receive.
struct Operation {
  Kind kind = Kind::AllReduce;
  std::vector<Post*> posts;  // by rank (collectives), or {send, receive}
  bool done = false;
};

struct Clique {
  std::string id;
  int nranks = 0;
  std::vector<Comm*> ranks;
  std::vector<std::thread::id> joined_outside_group;  // by rank
  std::map<std::uint64_t, std::shared_ptr<Operation>> collectives;
  std::map<std::tuple<int, int, std::uint64_t>, std::shared_ptr<Operation>> transfers;  // src, dst, k
};

// One host operation: every post of one ncclGroup queued on one stream.
struct Launch {
  std::vector<std::shared_ptr<Operation>> operations;
};

struct State {
  std::map<std::string, std::unique_ptr<Clique>> cliques;
  std::vector<std::unique_ptr<Comm>> comms;      // never freed: queued work may still point at them
  std::vector<std::unique_ptr<Post>> posts;      // likewise
  fake_nccl_stats stats{};
  std::uint64_t ids = 0;
};

State& state() {
  static State* s = new State();  // never destroyed: the plugin may call in during process exit
  return *s;
}

thread_local int group_depth = 0;
thread_local std::vector<Clique*> group_joins;  // cliques this thread joined in its open group
thread_local std::vector<std::pair<Post*, std::shared_ptr<Operation>>> group_posts;
thread_local std::string last_error;

struct Locked {
  Locked() { fake_cuda_lock(); }
  ~Locked() { fake_cuda_unlock(); }
};

void violation(const std::string& what) {
  State& s = state();
  ++s.stats.violations;
  std::snprintf(s.stats.last_violation, sizeof(s.stats.last_violation), "%s", what.c_str());
  fake_cuda_violation(("fake_nccl: " + what).c_str());
}

Result refuse(Result result, const std::string& why) {
  last_error = "fake nccl: " + why;
  return result;
}

std::size_t type_size(nccl::DataType type) {
  switch (type) {
    case nccl::ncclInt8:
    case nccl::ncclUint8: return 1;
    case nccl::ncclFloat16:
    case nccl::ncclBfloat16: return 2;
    case nccl::ncclInt32:
    case nccl::ncclUint32:
    case nccl::ncclFloat32: return 4;
    case nccl::ncclInt64:
    case nccl::ncclUint64:
    case nccl::ncclFloat64: return 8;
    default: return 0;
  }
}

// Integer sums and products wrap, as NCCL's do (computed unsigned: signed overflow is undefined).
template <class T>
T wrapping(T a, T b, bool product) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;  // no promotion to int
    const W r = product ? static_cast<W>(static_cast<W>(a) * static_cast<W>(b)) : static_cast<W>(static_cast<W>(a) + static_cast<W>(b));
    return static_cast<T>(static_cast<U>(r));
  } else {
    return product ? a * b : a + b;
  }
}

template <class T>
T combine(T a, T b, nccl::RedOp op) {
  switch (op) {
    case nccl::ncclSum: return wrapping(a, b, false);
    case nccl::ncclProd: return wrapping(a, b, true);
    case nccl::ncclMax: return a > b ? a : b;
    case nccl::ncclMin: return a < b ? a : b;
    default: return a;
  }
}

template <class T>
void reduce_into(std::vector<unsigned char>& acc, const unsigned char* value, std::size_t count, nccl::RedOp op) {
  for (std::size_t i = 0; i < count; ++i) {
    T a;
    T b;
    std::memcpy(&a, acc.data() + i * sizeof(T), sizeof(T));
    std::memcpy(&b, value + i * sizeof(T), sizeof(T));
    a = combine(a, b, op);
    std::memcpy(acc.data() + i * sizeof(T), &a, sizeof(T));
  }
}

// acc = acc (op) value, element-wise: rank order, like the real library's integer results.
void reduce(std::vector<unsigned char>& acc, const unsigned char* value, std::size_t count, nccl::DataType type,
            nccl::RedOp op) {
  switch (type) {
    case nccl::ncclInt8: return reduce_into<std::int8_t>(acc, value, count, op);
    case nccl::ncclUint8: return reduce_into<std::uint8_t>(acc, value, count, op);
    case nccl::ncclInt32: return reduce_into<std::int32_t>(acc, value, count, op);
    case nccl::ncclUint32: return reduce_into<std::uint32_t>(acc, value, count, op);
    case nccl::ncclInt64: return reduce_into<std::int64_t>(acc, value, count, op);
    case nccl::ncclUint64: return reduce_into<std::uint64_t>(acc, value, count, op);
    case nccl::ncclFloat32: return reduce_into<float>(acc, value, count, op);
    case nccl::ncclFloat64: return reduce_into<double>(acc, value, count, op);
    default: violation("a reduction over a type the fake does not implement (f16/bf16)");
  }
}

const unsigned char* bytes(const void* p) { return static_cast<const unsigned char*>(p); }

void write(void* dst, const std::vector<unsigned char>& data, std::size_t offset, std::size_t length) {
  std::memcpy(dst, data.data() + offset, length);
  state().stats.bytes_moved += length;
}

// Every part names the same count and type (and, for collectives, op and root; a send's and its
// receive's `root` are their peers, which differ).
bool agree(const Operation& op) {
  const Post& first = *op.posts[0];
  for (const Post* p : op.posts) {
    if (p->count != first.count || p->type != first.type) return false;
    if (op.kind != Kind::SendRecv && (p->op != first.op || p->root != first.root)) return false;
  }
  return true;
}

// The order in which a reduction visits the ranks: rank order, or (FAKE_NCCL_FLOAT_SUM_ORDER=reverse)
// the reverse for float sums, as the real library's ring may add in another order than rank order.
std::vector<std::size_t> reduction_order(std::size_t n, nccl::DataType type, nccl::RedOp op) {
  std::vector<std::size_t> order(n);
  for (std::size_t r = 0; r < n; ++r) order[r] = r;
  const char* text = std::getenv("FAKE_NCCL_FLOAT_SUM_ORDER");
  const bool is_float = type == nccl::ncclFloat32 || type == nccl::ncclFloat64;
  if (text != nullptr && std::string(text) == "reverse" && is_float && op == nccl::ncclSum)
    for (std::size_t r = 0; r < n; ++r) order[r] = n - 1 - r;
  return order;
}

void move_data(Operation& op) {
  const Post& first = *op.posts[0];
  const std::size_t size = type_size(first.type);
  const std::size_t n = op.posts.size();
  const std::size_t chunk = first.count * size;  // bytes of the call's count
  switch (op.kind) {
    case Kind::AllReduce: {
      const std::vector<std::size_t> order = reduction_order(n, first.type, first.op);
      std::vector<unsigned char> acc(bytes(op.posts[order[0]]->send), bytes(op.posts[order[0]]->send) + chunk);
      for (std::size_t k = 1; k < n; ++k) reduce(acc, bytes(op.posts[order[k]]->send), first.count, first.type, first.op);
      for (Post* p : op.posts) write(p->recv, acc, 0, chunk);
      return;
    }
    case Kind::ReduceScatter: {
      std::vector<std::vector<unsigned char>> parts(n);
      for (std::size_t r = 0; r < n; ++r) {
        const std::vector<std::size_t> order = reduction_order(n, first.type, first.op);
        const unsigned char* head = bytes(op.posts[order[0]]->send) + r * chunk;
        std::vector<unsigned char> acc(head, head + chunk);
        for (std::size_t k = 1; k < n; ++k)
          reduce(acc, bytes(op.posts[order[k]]->send) + r * chunk, first.count, first.type, first.op);
        parts[r] = std::move(acc);
      }
      for (std::size_t r = 0; r < n; ++r) write(op.posts[r]->recv, parts[r], 0, chunk);
      return;
    }
    case Kind::AllGather: {
      std::vector<unsigned char> all;
      for (const Post* p : op.posts) all.insert(all.end(), bytes(p->send), bytes(p->send) + chunk);
      for (Post* p : op.posts) write(p->recv, all, 0, all.size());
      return;
    }
    case Kind::Broadcast: {
      const Post& root = *op.posts[static_cast<std::size_t>(first.root)];
      std::vector<unsigned char> data(bytes(root.send), bytes(root.send) + chunk);
      for (Post* p : op.posts) write(p->recv, data, 0, chunk);
      return;
    }
    case Kind::SendRecv: {
      std::vector<unsigned char> data(bytes(op.posts[0]->send), bytes(op.posts[0]->send) + chunk);
      write(op.posts[1]->recv, data, 0, chunk);
      return;
    }
  }
}

bool every_rank_posted(const Operation& op) {
  for (const Post* p : op.posts)
    if (p == nullptr || p->position == 0) return false;
  return true;
}

void execute(Operation& op) {
  if (op.done) return;
  if (!every_rank_posted(op)) {
    // Like the real library, wait for the other ranks (threads standing in for processes), with
    // the lock released, up to 10 s; one of them may run the operation meanwhile.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!op.done && !every_rank_posted(op) && std::chrono::steady_clock::now() < deadline) {
      const int depth = fake_cuda_unlock_all();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      fake_cuda_relock(depth);
    }
    if (op.done) return;
    if (!every_rank_posted(op)) {
      violation("an operation ran before every rank posted its part (waited 10 s): the real library would hang");
      op.done = true;
      return;
    }
  }
  if (!agree(op)) violation("ranks disagree on the count, type, op or root of one operation");
  op.done = true;  // before running other streams: their launches of this operation skip it
  for (const Post* p : op.posts) fake_cuda_run_stream_until(p->stream, p->position - 1);
  move_data(op);
}

void run_launch(void* user) {
  std::unique_ptr<Launch> launch(static_cast<Launch*>(user));
  for (const auto& op : launch->operations) execute(*op);
}

// Queue one host operation per stream for `posts` (one group's, or a single call's).
void launch(const std::vector<std::pair<Post*, std::shared_ptr<Operation>>>& posts) {
  std::map<void*, std::vector<std::pair<Post*, std::shared_ptr<Operation>>>> by_stream;
  for (const auto& entry : posts) by_stream[entry.first->stream].push_back(entry);
  for (auto& [stream, entries] : by_stream) {
    auto* l = new Launch();
    for (const auto& entry : entries) l->operations.push_back(entry.second);
    const std::uint64_t position = fake_cuda_enqueue_host(stream, &run_launch, l);
    for (const auto& entry : entries) entry.first->position = position;
  }
}

bool valid_comm(nccl::Comm handle) {
  auto* comm = reinterpret_cast<Comm*>(handle);
  for (const auto& c : state().comms) {
    if (c.get() == comm) return !comm->destroyed;
  }
  return false;
}

Result post(nccl::Comm handle, Post p, std::size_t send_bytes, std::size_t recv_bytes) {
  Locked lock;
  if (!valid_comm(handle)) return refuse(nccl::ncclInvalidArgument, "an invalid or destroyed communicator");
  Comm* comm = reinterpret_cast<Comm*>(handle);
  if (type_size(p.type) == 0) return refuse(nccl::ncclInvalidArgument, "an unknown data type");
  if (fake_cuda_stream_device(p.stream) != comm->device) violation("a stream of another device than the communicator's");
  if (p.send != nullptr && send_bytes > 0 &&
      fake_cuda_pointer_device(reinterpret_cast<std::uint64_t>(p.send), send_bytes) != comm->device)
    violation("a send buffer that is not device memory of the communicator's device");
  if (p.recv != nullptr && recv_bytes > 0 &&
      fake_cuda_pointer_device(reinterpret_cast<std::uint64_t>(p.recv), recv_bytes) != comm->device)
    violation("a receive buffer that is not device memory of the communicator's device");
  p.comm = comm;
  state().posts.push_back(std::make_unique<Post>(p));
  Post* stored = state().posts.back().get();
  Clique& clique = *comm->clique;
  std::shared_ptr<Operation>& op = [&]() -> std::shared_ptr<Operation>& {
    if (p.kind != Kind::SendRecv) return clique.collectives[comm->collectives++];
    const bool sending = p.send != nullptr;
    const int peer = p.root;
    const auto key = sending ? std::make_tuple(comm->rank, peer, comm->sent[peer]++)
                             : std::make_tuple(peer, comm->rank, comm->received[peer]++);
    return clique.transfers[key];
  }();
  if (!op) {
    op = std::make_shared<Operation>();
    op->kind = p.kind;
    op->posts.assign(p.kind == Kind::SendRecv ? 2 : static_cast<std::size_t>(clique.nranks), nullptr);
  }
  const std::size_t slot = p.kind == Kind::SendRecv ? (p.send != nullptr ? 0 : 1) : static_cast<std::size_t>(comm->rank);
  if (op->kind != p.kind || op->posts[slot] != nullptr) violation("ranks disagree on the order of their operations");
  op->posts[slot] = stored;
  if (group_depth > 0) {
    group_posts.emplace_back(stored, op);
  } else {
    launch({{stored, op}});
  }
  return nccl::ncclSuccess;
}

std::size_t elements_bytes(std::size_t count, nccl::DataType type) { return count * type_size(type); }

// Like the real library, joining returns once every rank of the clique joined (other threads
// joining theirs, as processes would): wait, with the lock released, up to 10 s (false then).
bool wait_for_ranks(const std::vector<Clique*>& cliques) {
  for (int waited_ms = 0; waited_ms < 10000; ++waited_ms) {
    bool complete = true;
    {
      Locked lock;
      for (const Clique* clique : cliques)
        for (const Comm* rank : clique->ranks) complete = complete && rank != nullptr;
    }
    if (complete) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

}  // namespace

// ---- the entry points ---------------------------------------------------------------------------

FAKE_EXPORT Result ncclGetVersion(int* version) {
  const char* text = std::getenv("FAKE_NCCL_VERSION");
  *version = text != nullptr ? std::atoi(text) : 22805;
  return nccl::ncclSuccess;
}

FAKE_EXPORT Result ncclGetUniqueId(nccl::UniqueId* id) {
  Locked lock;
  std::memset(id->internal, 0, sizeof(id->internal));
  std::snprintf(id->internal, sizeof(id->internal), "fake-nccl-%d-%llu", static_cast<int>(getpid()),
                static_cast<unsigned long long>(++state().ids));
  return nccl::ncclSuccess;
}

static Result join_rank(nccl::Comm* out, int nranks, const nccl::UniqueId& id, int rank, Clique** joined) {
  Locked lock;
  if (std::getenv("FAKE_NCCL_FAIL_INIT") != nullptr)
    return refuse(nccl::ncclSystemError, "FAKE_NCCL_FAIL_INIT is set");
  if (nranks < 1 || rank < 0 || rank >= nranks) return refuse(nccl::ncclInvalidArgument, "rank or nranks out of range");
  const int device = fake_cuda_current_device();
  if (device < 0) return refuse(nccl::ncclUnhandledCudaError, "no current CUDA context");
  const std::string key(id.internal, sizeof(id.internal));
  auto& slot = state().cliques[key];
  if (!slot) {
    slot = std::make_unique<Clique>();
    slot->id = key;
    slot->nranks = nranks;
    slot->ranks.assign(static_cast<std::size_t>(nranks), nullptr);
    slot->joined_outside_group.assign(static_cast<std::size_t>(nranks), std::thread::id());
  }
  Clique& clique = *slot;
  if (clique.nranks != nranks) return refuse(nccl::ncclInvalidUsage, "nranks differs between ranks of one id");
  if (clique.ranks[static_cast<std::size_t>(rank)] != nullptr)
    return refuse(nccl::ncclInvalidUsage, "rank " + std::to_string(rank) + " joined twice");
  for (const Comm* other : clique.ranks) {
    if (other != nullptr && other->device == device)
      return refuse(nccl::ncclInvalidUsage, "Duplicate GPU detected: two ranks on device " + std::to_string(device));
  }
  if (group_depth > 0) group_joins.push_back(&clique);
  if (group_depth == 0 && nranks > 1) {
    for (const std::thread::id& joined : clique.joined_outside_group) {
      if (joined == std::this_thread::get_id())
        violation("one thread joined two ranks of a clique outside ncclGroupStart/End: the real library would hang");
    }
    clique.joined_outside_group[static_cast<std::size_t>(rank)] = std::this_thread::get_id();
  }
  state().comms.push_back(std::make_unique<Comm>());
  Comm* comm = state().comms.back().get();
  comm->clique = &clique;
  comm->rank = rank;
  comm->device = device;
  clique.ranks[static_cast<std::size_t>(rank)] = comm;
  ++state().stats.live_comms;
  ++state().stats.inits;
  *out = reinterpret_cast<nccl::Comm>(comm);
  *joined = &clique;
  return nccl::ncclSuccess;
}

FAKE_EXPORT Result ncclCommInitRank(nccl::Comm* out, int nranks, nccl::UniqueId id, int rank) {
  Clique* joined = nullptr;
  const Result result = join_rank(out, nranks, id, rank, &joined);
  if (result != nccl::ncclSuccess || group_depth > 0) return result;
  if (!wait_for_ranks({joined})) return refuse(nccl::ncclSystemError, "ranks missing after 10 s");
  return nccl::ncclSuccess;
}

static Result destroy(nccl::Comm handle) {
  Locked lock;
  if (!valid_comm(handle)) return refuse(nccl::ncclInvalidArgument, "an invalid or destroyed communicator");
  auto* comm = reinterpret_cast<Comm*>(handle);
  comm->destroyed = true;
  --state().stats.live_comms;
  return nccl::ncclSuccess;
}

FAKE_EXPORT Result ncclCommDestroy(nccl::Comm comm) { return destroy(comm); }

FAKE_EXPORT Result ncclCommAbort(nccl::Comm comm) { return destroy(comm); }

FAKE_EXPORT Result ncclCommGetAsyncError(nccl::Comm comm, Result* error) {
  Locked lock;
  if (!valid_comm(comm)) return refuse(nccl::ncclInvalidArgument, "an invalid or destroyed communicator");
  const char* text = std::getenv("FAKE_NCCL_ASYNC_ERROR");
  *error = text != nullptr ? std::atoi(text) : nccl::ncclSuccess;
  return nccl::ncclSuccess;
}

FAKE_EXPORT const char* ncclGetErrorString(Result result) {
  switch (result) {
    case nccl::ncclSuccess: return "no error";
    case nccl::ncclSystemError: return "unhandled system error (fake)";
    case nccl::ncclInvalidArgument: return "invalid argument (fake)";
    case nccl::ncclInvalidUsage: return "invalid usage (fake)";
    default: return "fake nccl error";
  }
}

FAKE_EXPORT const char* ncclGetLastError(nccl::Comm) { return last_error.c_str(); }

FAKE_EXPORT Result ncclGroupStart() {
  ++group_depth;
  return nccl::ncclSuccess;
}

FAKE_EXPORT Result ncclGroupEnd() {
  if (group_depth == 0) return refuse(nccl::ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
  if (--group_depth > 0) return nccl::ncclSuccess;
  const std::vector<Clique*> joined = std::move(group_joins);
  group_joins.clear();
  if (!wait_for_ranks(joined)) return refuse(nccl::ncclSystemError, "ranks missing after 10 s");
  Locked lock;
  ++state().stats.groups;
  auto posts = std::move(group_posts);
  group_posts.clear();
  launch(posts);
  return nccl::ncclSuccess;
}

FAKE_EXPORT Result ncclAllReduce(const void* send, void* recv, std::size_t count, nccl::DataType type, nccl::RedOp op,
                                 nccl::Comm comm, nccl::Stream stream) {
  { Locked lock; ++state().stats.all_reduces; }
  const std::size_t n = elements_bytes(count, type);
  return post(comm, Post{nullptr, Kind::AllReduce, send, recv, count, type, op, 0, stream, 0}, n, n);
}

FAKE_EXPORT Result ncclReduceScatter(const void* send, void* recv, std::size_t recv_count, nccl::DataType type,
                                     nccl::RedOp op, nccl::Comm comm, nccl::Stream stream) {
  int ranks = 1;
  {
    Locked lock;
    ++state().stats.reduce_scatters;
    if (valid_comm(comm)) ranks = reinterpret_cast<Comm*>(comm)->clique->nranks;
  }
  const std::size_t n = elements_bytes(recv_count, type);
  return post(comm, Post{nullptr, Kind::ReduceScatter, send, recv, recv_count, type, op, 0, stream, 0},
              n * static_cast<std::size_t>(ranks), n);
}

FAKE_EXPORT Result ncclAllGather(const void* send, void* recv, std::size_t send_count, nccl::DataType type,
                                 nccl::Comm comm, nccl::Stream stream) {
  int ranks = 1;
  {
    Locked lock;
    ++state().stats.all_gathers;
    if (valid_comm(comm)) ranks = reinterpret_cast<Comm*>(comm)->clique->nranks;
  }
  const std::size_t n = elements_bytes(send_count, type);
  return post(comm, Post{nullptr, Kind::AllGather, send, recv, send_count, type, 0, 0, stream, 0}, n,
              n * static_cast<std::size_t>(ranks));
}

FAKE_EXPORT Result ncclBroadcast(const void* send, void* recv, std::size_t count, nccl::DataType type, int root,
                                 nccl::Comm comm, nccl::Stream stream) {
  { Locked lock; ++state().stats.broadcasts; }
  const std::size_t n = elements_bytes(count, type);
  return post(comm, Post{nullptr, Kind::Broadcast, send, recv, count, type, 0, root, stream, 0}, n, n);
}

FAKE_EXPORT Result ncclSend(const void* send, std::size_t count, nccl::DataType type, int peer, nccl::Comm comm,
                            nccl::Stream stream) {
  { Locked lock; ++state().stats.sends; }
  return post(comm, Post{nullptr, Kind::SendRecv, send, nullptr, count, type, 0, peer, stream, 0},
              elements_bytes(count, type), 0);
}

FAKE_EXPORT Result ncclRecv(void* recv, std::size_t count, nccl::DataType type, int peer, nccl::Comm comm,
                            nccl::Stream stream) {
  { Locked lock; ++state().stats.recvs; }
  return post(comm, Post{nullptr, Kind::SendRecv, nullptr, recv, count, type, 0, peer, stream, 0}, 0,
              elements_bytes(count, type));
}

FAKE_EXPORT void fake_nccl_get_stats(fake_nccl_stats* out) {
  Locked lock;
  *out = state().stats;
}

FAKE_EXPORT void fake_nccl_reset_counters(void) {
  Locked lock;
  const std::uint64_t live = state().stats.live_comms;
  state().stats = fake_nccl_stats{};
  state().stats.live_comms = live;
}
