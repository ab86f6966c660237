// Collectives of device groups (vyre/group.hpp: all_reduce, all_gather, reduce_scatter, broadcast)
// on the fake driver with 3 fake devices and the fake NCCL (fake_nccl/, which really moves the
// data between the fake devices' memory, in stream order). CPU only. Covers: every collective's
// results against host models (integers exact for every reduction, float sums in the fake's rank
// order), the bitwise reductions NCCL lacks (exchanged, then folded by the plugin's kernel, which
// the emulator below runs), ordering after and before resident dispatches without any explicit
// synchronisation, the communicator's life, and the errors (NCCL missing, a failing init, an
// asynchronous NCCL error, a device missing, two members on one device, sizes, buffer lists,
// refused types and reductions), each with its code and a Fix; and groups that span processes
// (Group::join; ranks emulated by threads, as the fake NCCL's cliques live in one process).
#include <doctest/doctest.h>

#include <unistd.h>

#include <atomic>
#include <barrier>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <type_traits>
#include <vector>

#include "fake_driver/fake_cuda.h"
#include "fake_kernels.hpp"
#include "fake_nccl/fake_nccl.h"
#include "collective_models.hpp"
#include "gpu_support.hpp"
#include "test_programs.hpp"
#include "vyre/builder.hpp"
#include "vyre/group.hpp"

namespace {

using namespace vyre::cudatest;  // test file: helpers of this suite (and its names: gpu_support.hpp)
using vyre::Type;
using vyre::host::Group;
using vyre::host::GroupBuffers;
using vyre::host::Reduce;

const bool kFakeDriver = use_fake_driver("fake_cuda_collectives_cache_home");
const bool kFakeNccl = [] {
  setenv("VYRE_NCCL_LIBRARY", FAKE_NCCL_LIBRARY, 1);
  unsetenv("FAKE_NCCL_FAIL_INIT");
  unsetenv("FAKE_NCCL_ASYNC_ERROR");
  return true;
}();

std::uint32_t* words_at(std::uint64_t address) { return reinterpret_cast<std::uint32_t*>(address); }

std::atomic<std::uint64_t> g_folds{0};        // launches of the fold kernel
std::atomic<std::uint64_t> g_float_folds{0};  // of them, rank-order float sums
std::atomic<bool> g_histogram{false};         // the program kernels emulate: histogram_program, else affine

// values: read u32 (runtime-sized); bins: output u32[16]. bins[values[i] % 16] += 1, atomically.
vyre::Program histogram_program() {
  using namespace vyre;
  using namespace vyre::dsl;
  ProgramBuilder b;
  b.workgroup(64);
  Buf values = b.buffer("values", Access::Read, Type::U32);
  b.buffer("bins", Access::Output, Type::U32, 16);
  Expr i = b.let("i", invocation_id(0));
  b.if_(lt(i, values.len()), [&] { b.let("previous", atomic(AtomicOp::Add, "bins", values[i] % u32(16), u32(1))); });
  return b.build();
}

// The bitwise fold (group/bitwise_kernel.hpp): gathered, out, words, ranks, op. And the affine
// program (test_programs.hpp): a, out, |a|, |out|, N, tail: out[i] = a[i] * 3 + i.
void emulate(const fake_cuda_launch* launch, void*) {
  const fake_cuda_launch& l = *launch;
  const auto* p = l.params;
  const std::string entry = l.entry;
  if (entry == "vyre_collective_bitwise") {
    REQUIRE(l.param_count == 5);
    ++g_folds;
    const std::uint64_t words = p[2];
    if (p[4] == 7 || p[4] == 8) {  // float sums in rank order (kFoldSumF32 / kFoldSumF64)
      ++g_float_folds;
      auto add_rows = [&](auto zero) {
        using F = decltype(zero);
        const std::uint64_t elements = words * 4 / sizeof(F);
        const auto* rows = reinterpret_cast<const F*>(p[0]);
        auto* out = reinterpret_cast<F*>(p[1]);
        for (std::uint64_t i = 0; i < elements; ++i) {
          F acc = rows[i];
          for (std::uint64_t q = 1; q < p[3]; ++q) acc = acc + rows[q * elements + i];
          out[i] = acc;
        }
      };
      if (p[4] == 7) add_rows(float{});
      else add_rows(double{});
      return;
    }
    for (std::uint64_t i = 0; i < words; ++i) {
      std::uint32_t acc = words_at(p[0])[i];
      for (std::uint64_t q = 1; q < p[3]; ++q) {
        const std::uint32_t v = words_at(p[0])[q * words + i];
        acc = p[4] == VYRE_REDUCE_AND ? (acc & v) : p[4] == VYRE_REDUCE_OR ? (acc | v) : (acc ^ v);
      }
      words_at(p[1])[i] = acc;
    }
    return;
  }
  const std::uint64_t per_thread = entry == "vyre_elementwise" ? 4 : 1;
  const std::uint64_t total = std::uint64_t{l.grid[0]} * l.grid[1] * l.grid[2] * l.block[0] * l.block[1] * l.block[2] * per_thread;
  // A sharded launch (a group dispatch's share) adds workgroup_base and grid_x: its invocations
  // start at workgroup_base * the workgroup size (affine_program's: 64).
  const std::uint64_t first = l.param_count == 8 ? p[6] * 64 : 0;
  for (std::uint64_t g = first; g < first + total; ++g) {
    if (p[5] != 0 && g >= p[4]) continue;
    if (g_histogram) {  // histogram_program: values, bins (16), |values|, |bins|, N, tail
      if (g < p[2]) ++words_at(p[1])[words_at(p[0])[g] % 16];
      continue;
    }
    if (g < p[2] && g < p[3]) words_at(p[1])[g] = words_at(p[0])[g] * 3 + static_cast<std::uint32_t>(g);
  }
}

struct Scope {
  Scope() : fake(Kernel::None) {
    fake_cuda_set_kernel(&emulate, nullptr);
    fake_nccl_reset_counters();
  }
  ~Scope() {
    fake_nccl_stats s{};
    fake_nccl_get_stats(&s);
    INFO("last fake NCCL violation: " << s.last_violation);
    CHECK(s.violations == 0);
  }
  FakeScope fake;
  ScopedEnv devices{"FAKE_CUDA_DEVICES", "3"};
};

fake_nccl_stats nccl_stats() {
  fake_nccl_stats s{};
  fake_nccl_get_stats(&s);
  return s;
}


std::vector<Bytes> views_of(const std::vector<ByteVector>& parts) { return views(parts); }

GroupBuffers with_data(const Group& group, const std::vector<ByteVector>& parts, std::uint64_t byte_len = 0) {
  const GroupBuffers buffers = group.alloc(byte_len != 0 ? byte_len : parts[0].size());
  group.upload(buffers, views_of(parts));
  return buffers;
}

const Type kIntegers[] = {Type::U32, Type::I32, Type::U64, Type::I64};
const Reduce kAllReductions[] = {Reduce::sum, Reduce::min, Reduce::max, Reduce::bit_and, Reduce::bit_or, Reduce::bit_xor};

}  // namespace

TEST_CASE("all_reduce of every integer type and reduction is exact for groups of 1, 2 and 3 devices") {
  Scope scope;
  constexpr std::size_t count = 333;  // odd: no element count is a multiple of a fold's block
  for (int ranks = 1; ranks <= 3; ++ranks) {
    const Group group = cuda_group(ranks);
    for (const Type t : kIntegers) {
      for (const Reduce op : kAllReductions) {
        CAPTURE(ranks);
        CAPTURE(vyre::type_name(t));
        CAPTURE(static_cast<int>(op));
        const std::vector<ByteVector> parts = random_parts(t, ranks, count, 17 + static_cast<std::uint64_t>(op));
        const GroupBuffers send = with_data(group, parts);
        const GroupBuffers recv = group.alloc(parts[0].size());
        const std::uint64_t folds = g_folds;
        group.all_reduce(send, recv, t, op, count);
        const std::vector<ByteVector> got = group.download(recv, parts[0].size());
        const ByteVector expected = fold(t, op, parts, 0, count);
        for (int r = 0; r < ranks; ++r) CHECK(got[static_cast<std::size_t>(r)] == expected);
        const bool bitwise = op == Reduce::bit_and || op == Reduce::bit_or || op == Reduce::bit_xor;
        CHECK(g_folds - folds == (bitwise ? static_cast<std::uint64_t>(ranks) : 0u));  // one fold per member
      }
    }
  }
  const fake_nccl_stats s = nccl_stats();
  CHECK(s.all_reduces == (1 + 2 + 3) * 4 * 3);  // sum/min/max through ncclAllReduce
  CHECK(s.all_gathers == (1 + 2 + 3) * 4 * 3);  // and/or/xor exchanged with ncclAllGather
}

TEST_CASE("float all_reduce: sums add in rank order (the fake's order), min and max exact") {
  Scope scope;
  constexpr std::size_t count = 1000;
  for (int ranks = 1; ranks <= 3; ++ranks) {
    const Group group = cuda_group(ranks);
    for (const Type t : {Type::F32, Type::F64}) {
      for (const Reduce op : {Reduce::sum, Reduce::min, Reduce::max}) {
        CAPTURE(ranks);
        CAPTURE(vyre::type_name(t));
        const std::vector<ByteVector> parts = random_parts(t, ranks, count, 5);
        const GroupBuffers send = with_data(group, parts);
        group.all_reduce(send, send, t, op, count);  // in place
        const std::vector<ByteVector> got = group.download(send, parts[0].size());
        for (int r = 0; r < ranks; ++r) CHECK(got[static_cast<std::size_t>(r)] == fold(t, op, parts, 0, count));
      }
    }
  }
}

TEST_CASE("sum_rank_order: float sums in rank order whatever order NCCL adds in; integers as sum") {
  Scope scope;
  constexpr std::size_t count = 1001;
  for (const char* order : {"rank", "reverse"}) {
    const ScopedEnv nccl_order("FAKE_NCCL_FLOAT_SUM_ORDER", order);
    CAPTURE(order);
    for (int ranks = 1; ranks <= 3; ++ranks) {
      CAPTURE(ranks);
      const Group group = cuda_group(ranks);
      const auto n = static_cast<std::size_t>(ranks);
      for (const Type t : {Type::F32, Type::F64, Type::U32, Type::I64}) {
        CAPTURE(vyre::type_name(t));
        const std::size_t size = vyre::byte_size(t);
        const std::vector<ByteVector> parts = random_parts(t, ranks, count, 23);
        const GroupBuffers send = with_data(group, parts);
        const GroupBuffers recv = group.alloc(count * size);
        const std::uint64_t float_folds = g_float_folds;
        group.all_reduce(send, recv, t, Reduce::sum_rank_order, count);
        for (const ByteVector& got : group.download(recv, count * size)) CHECK(got == fold(t, Reduce::sum, parts, 0, count));
        group.all_reduce(send, send, t, Reduce::sum_rank_order, count);  // in place
        for (const ByteVector& got : group.download(send, count * size)) CHECK(got == fold(t, Reduce::sum, parts, 0, count));
        const std::vector<ByteVector> big = random_parts(t, ranks, n * count, 41);
        const GroupBuffers scattered = group.alloc(count * size);
        group.reduce_scatter(with_data(group, big), scattered, t, Reduce::sum_rank_order, count);
        const std::vector<ByteVector> got = group.download(scattered, count * size);
        for (std::size_t r = 0; r < n; ++r) CHECK(got[r] == fold(t, Reduce::sum, big, r * count, count));
        // Floats are exchanged and added by the fold, one per member per call; integers go to NCCL's sum.
        CHECK(g_float_folds - float_folds == (vyre::is_float(t) ? 3 * n : 0u));
      }
    }
  }
  // Where the order shows: 1 + 1e8 - 1e8 is 0 in f32 rank order (1e8 + 1 rounds to 1e8) and 1 in
  // reverse. NCCL's sum follows its own order; sum_rank_order does not.
  const ScopedEnv nccl_order("FAKE_NCCL_FLOAT_SUM_ORDER", "reverse");
  const Group group = cuda_group(3);
  const std::vector<float> values{1.0f, 1e8f, -1e8f};
  std::vector<ByteVector> parts;
  for (const float v : values) parts.push_back(ByteVector(reinterpret_cast<const std::byte*>(&v), reinterpret_cast<const std::byte*>(&v) + 4));
  auto sum_with = [&](Reduce op) {
    const GroupBuffers buffers = with_data(group, parts);
    group.all_reduce(buffers, buffers, Type::F32, op, 1);
    std::vector<float> out;
    for (const ByteVector& got : group.download(buffers, 4)) {
      float f;
      std::memcpy(&f, got.data(), 4);
      out.push_back(f);
    }
    return out;
  };
  CHECK(sum_with(Reduce::sum) == std::vector<float>(3, 1.0f));            // the fake's reverse order
  CHECK(sum_with(Reduce::sum_rank_order) == std::vector<float>(3, 0.0f));  // rank order
}

TEST_CASE("all_gather, reduce_scatter (every reduction) and broadcast from every root give the models' bytes") {
  Scope scope;
  constexpr std::size_t count = 77;
  for (int ranks = 1; ranks <= 3; ++ranks) {
    CAPTURE(ranks);
    const Group group = cuda_group(ranks);
    const auto n = static_cast<std::size_t>(ranks);
    for (const Type t : {Type::U32, Type::I64, Type::F32, Type::F64}) {
      CAPTURE(vyre::type_name(t));
      const std::size_t size = vyre::byte_size(t);
      // all_gather: every member receives every rank's elements, in rank order.
      const std::vector<ByteVector> parts = random_parts(t, ranks, count, 9);
      const GroupBuffers recv = group.alloc(n * count * size);
      group.all_gather(with_data(group, parts), recv, t, count);
      ByteVector all;
      for (const ByteVector& p : parts) all.insert(all.end(), p.begin(), p.end());
      for (const ByteVector& got : group.download(recv, all.size())) CHECK(got == all);

      // reduce_scatter: member r receives the reduction of everyone's r-th chunk.
      for (const Reduce op : kAllReductions) {
        if (vyre::is_float(t) && (op == Reduce::bit_and || op == Reduce::bit_or || op == Reduce::bit_xor)) continue;
        CAPTURE(static_cast<int>(op));
        const std::vector<ByteVector> big = random_parts(t, ranks, n * count, 31);
        const GroupBuffers out = group.alloc(count * size);
        group.reduce_scatter(with_data(group, big), out, t, op, count);
        const std::vector<ByteVector> got = group.download(out, count * size);
        for (std::size_t r = 0; r < n; ++r) CHECK(got[r] == fold(t, op, big, r * count, count));
      }

      // broadcast: every member receives the root's elements; non-root send buffers may be absent.
      for (std::uint32_t root = 0; root < n; ++root) {
        CAPTURE(root);
        GroupBuffers send(n);
        send[root] = group.alloc(count * size)[root];
        group.member(root).upload(send[root], 0, parts[root]);
        const GroupBuffers into = group.alloc(count * size);
        group.broadcast(send, into, t, count, root);
        for (const ByteVector& got : group.download(into, count * size)) CHECK(got == parts[root]);
      }
    }
  }
  const fake_nccl_stats s = nccl_stats();
  CHECK(s.sends == s.recvs);  // bitwise reduce_scatter: an all-to-all of sends and receives
  CHECK(s.sends > 0);
}

TEST_CASE("collectives order after the dispatches that write their send buffers and before the ones that read their results") {
  Scope scope;
  constexpr std::uint32_t n = 500;
  const Group group = cuda_group(3);
  const vyre::Program affine = affine_program(n);
  std::vector<std::vector<std::uint32_t>> a;
  std::vector<std::uint32_t> sum(n, 0);
  const GroupBuffers inputs = group.alloc(n * 4);
  const GroupBuffers written = group.alloc(n * 4);
  const GroupBuffers reduced = group.alloc(n * 4);
  const GroupBuffers after = group.alloc(n * 4);
  std::vector<vyre::host::Program> programs;
  for (std::size_t r = 0; r < 3; ++r) {
    a.push_back(random_words(n, 40 + static_cast<std::uint32_t>(r), 1000000));
    group.member(r).upload(inputs[r], 0, bytes(a[r]));
    programs.push_back(group.member(r).compile(affine));
    // written = affine(a_r), queued; nothing waits for it before the collective is queued.
    const std::vector<Binding> bindings{Binding::of(inputs[r]), Binding::of(written[r])};
    group.member(r).dispatch_resident_async(programs[r], bindings).wait();
    const std::vector<std::uint32_t> model = affine_model(a[r], n);
    for (std::uint32_t i = 0; i < n; ++i) sum[i] += model[i];
  }
  // The PendingDispatch waits above ran the kernels; now the same with work left queued: upload
  // new inputs and dispatch without waiting, then all_reduce, then dispatch on the result.
  std::vector<vyre::host::PendingDispatch> pending;
  std::fill(sum.begin(), sum.end(), 0u);
  for (std::size_t r = 0; r < 3; ++r) {
    a[r] = random_words(n, 60 + static_cast<std::uint32_t>(r), 1000000);
    group.member(r).upload(inputs[r], 0, bytes(a[r]));
    const std::vector<Binding> bindings{Binding::of(inputs[r]), Binding::of(written[r])};
    pending.push_back(group.member(r).dispatch_resident_async(programs[r], bindings));
    const std::vector<std::uint32_t> model = affine_model(a[r], n);
    for (std::uint32_t i = 0; i < n; ++i) sum[i] += model[i];
  }
  group.all_reduce(written, reduced, Type::U32, Reduce::sum, n);
  for (std::size_t r = 0; r < 3; ++r) {
    const std::vector<Binding> bindings{Binding::of(reduced[r]), Binding::of(after[r])};
    group.member(r).dispatch_resident(programs[r], bindings);
  }
  for (const ByteVector& got : group.download(reduced, n * 4)) CHECK(words(got) == sum);
  for (const ByteVector& got : group.download(after, n * 4)) CHECK(words(got) == affine_model(sum, n));
  for (const auto& p : pending) p.wait();
}

TEST_CASE("the communicator: made once per group (copies share it), one rank per member, destroyed with the last copy") {
  Scope scope;
  const std::uint64_t live = nccl_stats().live_comms;
  {
    const Group group = cuda_group(3);
    CHECK(group.has_collectives());
    CHECK(nccl_stats().inits == 0);  // sharded dispatch needs no communicator
    group.connect();
    CHECK(nccl_stats().inits == 3);
    CHECK(nccl_stats().live_comms == live + 3);
    const Group copy = group;  // NOLINT(performance-unnecessary-copy-initialization): the copy is the test
    const std::vector<ByteVector> parts = random_parts(Type::U32, 3, 10, 1);
    const GroupBuffers buffers = with_data(copy, parts);
    copy.all_reduce(buffers, buffers, Type::U32, Reduce::max, 10);
    group.all_reduce(buffers, buffers, Type::U32, Reduce::max, 10);
    CHECK(nccl_stats().inits == 3);
    CHECK(nccl_stats().groups >= 3);  // init, and each collective, in one ncclGroupStart/End
    CHECK(copy.download(buffers, 40)[2] == fold(Type::U32, Reduce::max, parts, 0, 10));
  }
  CHECK(nccl_stats().live_comms == live);
}

TEST_CASE("collective errors: NCCL missing, failing or failed; devices missing or shared; each with its code and a Fix") {
  Scope scope;
  {
    ScopedEnv missing("VYRE_NCCL_LIBRARY", "/nonexistent/libnccl.so.2");
    const std::string message = expect_error([] { cuda_group(2).connect(); }, VYRE_ERR_NO_DEVICE);
    CHECK(message.find("/nonexistent/libnccl.so.2") != std::string::npos);  // names the paths tried
    CHECK(message.find("VYRE_NCCL_LIBRARY") != std::string::npos);
    // Sharded dispatch does not need NCCL.
    CHECK(cuda_group(2).dispatch(affine_program(8), std::vector<Bytes>{bytes(std::vector<std::uint32_t>(8, 1))},
                                 {{"out", vyre::host::Placement::gather()}})
              .size() == 1);
  }
  const std::uint64_t live = nccl_stats().live_comms;
  {
    ScopedEnv fail_init("FAKE_NCCL_FAIL_INIT", "1");
    const std::string message = expect_error([] { cuda_group(3).connect(); }, VYRE_ERR_DEVICE);
    CHECK(message.find("ncclCommInitRank") != std::string::npos);
  }
  CHECK(nccl_stats().live_comms == live);  // nothing left behind
  {
    const Group group = cuda_group(2);
    const GroupBuffers b = group.alloc(64);
    group.all_reduce(b, b, Type::U32, Reduce::sum, 16);
    {
      ScopedEnv async_error("FAKE_NCCL_ASYNC_ERROR", "6");  // ncclRemoteError
      expect_error([&] { group.all_reduce(b, b, Type::U32, Reduce::sum, 16); }, VYRE_ERR_DEVICE);
    }
    // The group is unusable after it: release it and make another.
    const std::string message = expect_error([&] { group.all_reduce(b, b, Type::U32, Reduce::sum, 16); }, VYRE_ERR_DEVICE);
    CHECK(message.find("failed earlier") != std::string::npos);
  }
  CHECK(nccl_stats().live_comms == live);
  // A device missing: the member cannot be created at all.
  {
    vyre::CreateOptions options;
    options.device_ordinal = 5;
    expect_error([&] { open_backend("cuda", options); }, VYRE_ERR_NO_DEVICE);
  }
  // Two members on one device: NCCL needs one rank per device.
  {
    vyre::CreateOptions options;
    options.device_ordinal = 1;
    const Group shared(std::vector<vyre::host::Backend>{open_backend("cuda", options), open_backend("cuda", options)});
    const std::string message = expect_error([&] { shared.connect(); }, VYRE_ERR_INVALID_ARGUMENT);
    CHECK(message.find("device 1") != std::string::npos);
  }
}

TEST_CASE("collective argument errors are refused before anything is queued") {
  Scope scope;
  const Group group = cuda_group(2);
  group.connect();
  const fake_nccl_stats before = nccl_stats();
  const std::uint64_t launches = FakeScope::stats().kernel_launches;
  const GroupBuffers small = group.alloc(64);   // 16 u32
  const GroupBuffers large = group.alloc(256);  // 64 u32
  // Sizes: all_gather of 16 u32 over 2 ranks needs 128 receive bytes; reduce_scatter 128 send bytes.
  std::string message = expect_error([&] { group.all_gather(large, small, Type::U32, 16); }, VYRE_ERR_INVALID_ARGUMENT);
  CHECK(message.find("recv[0] has 64 bytes") != std::string::npos);
  expect_error([&] { group.reduce_scatter(small, large, Type::U32, Reduce::sum, 16); }, VYRE_ERR_INVALID_ARGUMENT);
  expect_error([&] { group.all_reduce(small, large, Type::U64, Reduce::sum, 16); }, VYRE_ERR_INVALID_ARGUMENT);
  expect_error([&] { group.all_reduce(small, small, Type::U32, Reduce::sum, ~0ull); }, VYRE_ERR_INVALID_ARGUMENT);
  // Buffer lists: one per member, each its member's.
  expect_error([&] { group.all_reduce(GroupBuffers{small[0]}, small, Type::U32, Reduce::sum, 16); }, VYRE_ERR_INVALID_ARGUMENT);
  expect_error([&] { group.all_reduce(GroupBuffers{small[1], small[0]}, small, Type::U32, Reduce::sum, 16); },
               VYRE_ERR_INVALID_ARGUMENT);
  expect_error([&] { group.all_reduce(GroupBuffers{small[0], {}}, small, Type::U32, Reduce::sum, 16); }, VYRE_ERR_INVALID_ARGUMENT);
  // In place only where NCCL allows it.
  expect_error([&] { group.all_gather(large, large, Type::U32, 16); }, VYRE_ERR_INVALID_ARGUMENT);
  // Types and reductions: no bitwise reduction of floats; no narrow or bool elements.
  for (const Reduce op : {Reduce::bit_and, Reduce::bit_or, Reduce::bit_xor}) {
    expect_error([&] { group.all_reduce(small, small, Type::F32, op, 16); }, VYRE_ERR_INVALID_ARGUMENT);
    expect_error([&] { group.reduce_scatter(large, small, Type::F64, op, 4); }, VYRE_ERR_INVALID_ARGUMENT);
  }
  for (const Type t : {Type::F16, Type::U8, Type::Bool, Type::BF16, Type::I16})
    expect_error([&] { group.all_reduce(small, small, t, Reduce::sum, 16); }, VYRE_ERR_UNSUPPORTED);
  expect_error([&] { group.all_reduce(small, small, Type::U32, static_cast<Reduce>(99), 16); }, VYRE_ERR_INVALID_ARGUMENT);
  expect_error([&] { group.broadcast(small, small, Type::U32, 16, 2); }, VYRE_ERR_INVALID_ARGUMENT);
  // A freed buffer.
  GroupBuffers gone = group.alloc(64);
  gone[1].free();
  expect_error([&] { group.all_reduce(gone, gone, Type::U32, Reduce::sum, 16); }, VYRE_ERR_INVALID_HANDLE);
  // Nothing reached NCCL or the device.
  const fake_nccl_stats after = nccl_stats();
  CHECK(after.all_reduces == before.all_reduces);
  CHECK(after.all_gathers == before.all_gathers);
  CHECK(after.reduce_scatters == before.reduce_scatters);
  CHECK(after.broadcasts == before.broadcasts);
  CHECK(FakeScope::stats().kernel_launches == launches);
  // A count of 0 queues nothing and is fine.
  group.all_reduce(small, small, Type::U32, Reduce::bit_xor, 0);
  CHECK(nccl_stats().all_gathers == before.all_gathers);
}

TEST_CASE("the extension's collective members at the ABI: NULLs, bad handles and short structs are errors, never crashes") {
  Scope scope;
  const vyre::host::Backend backend = open_backend("cuda");
  const auto* ext = reinterpret_cast<const vyre_device_group_extension*>(backend.extension(VYRE_EXTENSION_DEVICE_GROUP));
  REQUIRE(ext != nullptr);
  REQUIRE(ext->base.struct_size >= VYRE_DEVICE_GROUP_EXTENSION_COLLECTIVES_SIZE);
  const vyre_backend_fns& fns = backend.fns();
  auto status_of = [&](vyre_status status, vyre_error* error) {
    fns.error_release(error);
    return status;
  };
  vyre_error* error = nullptr;
  vyre_device_group* group = nullptr;
  vyre_backend* member = backend.native();
  CHECK(status_of(ext->group_create(&member, 1, nullptr, &error), error) == VYRE_ERR_INVALID_ARGUMENT);
  error = nullptr;
  CHECK(status_of(ext->group_create(nullptr, 1, &group, &error), error) == VYRE_ERR_INVALID_ARGUMENT);
  error = nullptr;
  CHECK(status_of(ext->group_create(&member, 0, &group, &error), error) == VYRE_ERR_INVALID_ARGUMENT);
  error = nullptr;
  vyre_backend* bogus = reinterpret_cast<vyre_backend*>(std::uintptr_t{0x1234});
  CHECK(status_of(ext->group_create(&bogus, 1, &group, &error), error) == VYRE_ERR_INVALID_HANDLE);
  vyre_collective_args args{};
  args.struct_size = sizeof args;
  error = nullptr;
  CHECK(status_of(ext->group_collective(nullptr, &args, &error), error) == VYRE_ERR_INVALID_HANDLE);
  REQUIRE(ext->group_create(&member, 1, &group, nullptr) == VYRE_OK);
  error = nullptr;
  CHECK(status_of(ext->group_collective(group, nullptr, &error), error) == VYRE_ERR_INVALID_ARGUMENT);
  args.struct_size = 8;
  error = nullptr;
  CHECK(status_of(ext->group_collective(group, &args, &error), error) == VYRE_ERR_ABI);
  args.struct_size = sizeof args;
  error = nullptr;
  CHECK(status_of(ext->group_collective(group, &args, &error), error) == VYRE_ERR_INVALID_ARGUMENT);  // op 0
  ext->group_release(group);
  ext->group_release(group);  // released: ignored
  ext->group_release(nullptr);
  error = nullptr;
  CHECK(status_of(ext->group_collective(group, &args, &error), error) == VYRE_ERR_INVALID_HANDLE);
}

TEST_CASE("a group that spans processes (three threads here, one per process there): the id through a file, every collective") {
  Scope scope;
  constexpr int kRanks = 3;
  constexpr std::size_t count = 50;
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("vyre-group-id-" + std::to_string(getpid()) + "-" + std::to_string(std::rand()))).string();
  const std::uint64_t live = nccl_stats().live_comms;
  std::barrier sync(kRanks);
  // Every rank's data, known to every thread; rank t uses entry t.
  const std::vector<ByteVector> words32 = random_parts(Type::U32, kRanks, count, 70);
  const std::vector<ByteVector> wide = random_parts(Type::I64, kRanks, kRanks * count, 71);
  const std::vector<std::string> failures = run_threads(kRanks, [&](int t, Failures& failed) {
    const auto r = static_cast<std::size_t>(t);
    auto check = [&](bool ok, const std::string& what) {
      if (!ok) failed.add("rank " + std::to_string(t) + ": " + what);
    };
    try {
      vyre::CreateOptions options;
      options.device_ordinal = t;
      const Group group = Group::join(open_backend("cuda", options), file, kRanks, static_cast<std::uint32_t>(t));
      check(group.size() == 1 && group.ranks() == kRanks && group.first_rank() == r, "size, ranks, first_rank");
      const GroupBuffers mine = group.alloc(count * 4);
      group.upload(mine, std::vector<Bytes>{words32[r]});
      // The fake runs queued work as soon as anything waits on it (even another stream's wait, or
      // a query), and cannot block there as NCCL would for a rank still to come: so every rank
      // queues each collective before any rank goes on (sync), which real processes need not do.
      const GroupBuffers sum = group.alloc(count * 4), bits = group.alloc(count * 4);
      const GroupBuffers gathered = group.alloc(kRanks * count * 4);
      const GroupBuffers big = group.alloc(kRanks * count * 8), scattered = group.alloc(count * 8);
      const GroupBuffers into = group.alloc(count * 4);
      group.upload(big, std::vector<Bytes>{wide[r]});
      sync.arrive_and_wait();
      group.all_reduce(mine, sum, Type::U32, Reduce::sum, count);
      sync.arrive_and_wait();
      group.all_reduce(mine, bits, Type::U32, Reduce::bit_xor, count);  // exchanged over every process, folded here
      sync.arrive_and_wait();
      group.all_gather(mine, gathered, Type::U32, count);
      sync.arrive_and_wait();
      group.reduce_scatter(big, scattered, Type::I64, Reduce::bit_or, count);  // an all-to-all across processes
      sync.arrive_and_wait();
      // broadcast from rank 2: only rank 2 passes a send buffer.
      group.broadcast(t == 2 ? mine : GroupBuffers{vyre::host::ResidentBuffer()}, into, Type::U32, count, 2);
      sync.arrive_and_wait();
      check(group.download(sum, count * 4)[0] == fold(Type::U32, Reduce::sum, words32, 0, count), "all_reduce sum");
      check(group.download(bits, count * 4)[0] == fold(Type::U32, Reduce::bit_xor, words32, 0, count), "all_reduce xor");
      ByteVector all;
      for (const ByteVector& p : words32) all.insert(all.end(), p.begin(), p.end());
      check(group.download(gathered, all.size())[0] == all, "all_gather");
      check(group.download(scattered, count * 8)[0] == fold(Type::I64, Reduce::bit_or, wide, r * count, count),
            "reduce_scatter or");
      check(group.download(into, count * 4)[0] == words32[2], "broadcast");
    } catch (...) {
      sync.arrive_and_drop();
      throw;
    }
  });
  CHECK(failures.empty());
  CHECK_FALSE(std::filesystem::exists(file));  // rank 0 removed it after everyone joined
  CHECK(nccl_stats().live_comms == live);
}

TEST_CASE("sharded dispatch across processes (three threads here): every rank gets the single-device bytes, or keeps its share resident") {
  Scope scope;
  constexpr int kRanks = 3;
  constexpr std::uint32_t n = 1000;  // 16 workgroups of 64: shares 6, 5, 5
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("vyre-group-dispatch-" + std::to_string(getpid()) + "-" + std::to_string(std::rand()))).string();
  const std::uint64_t live = nccl_stats().live_comms;
  const vyre::Program program = affine_program(n);
  const std::vector<std::uint32_t> a = random_words(n, 61, 100000);
  const std::vector<std::uint32_t> model = affine_model(a, n);
  const std::vector<std::string> failures = run_threads(kRanks, [&](int t, Failures& failed) {
    auto check = [&](bool ok, const std::string& what) {
      if (!ok) failed.add("rank " + std::to_string(t) + ": " + what);
    };
    vyre::CreateOptions options;
    options.device_ordinal = t;
    const Group group = Group::join(open_backend("cuda", options), file, kRanks, static_cast<std::uint32_t>(t));
    for (const vyre::host::Placement input : {vyre::host::Placement::split(), vyre::host::Placement::replicate()}) {
      const std::vector<ByteVector> out =
          group.dispatch(program, std::vector<Bytes>{bytes(a)}, {{"a", input}, {"out", vyre::host::Placement::gather()}});
      check(out.size() == 1 && words(out[0]) == model, "gathered output equals the single-device result");
    }
    // Left resident: this rank's buffer holds its share only; an all_reduce(or) over the zeroed
    // rest assembles the whole result on every rank.
    const GroupBuffers in = group.alloc(n * 4), mine = group.alloc(n * 4), whole = group.alloc(n * 4);
    group.upload(in, std::vector<Bytes>{bytes(a)});
    const vyre::host::GroupShards shards = group.dispatch_resident(
        program, std::vector<vyre::host::GroupBinding>{vyre::host::GroupBinding::of(in), vyre::host::GroupBinding::of(mine)});
    const vyre::IndexRange range = shards.elements(static_cast<std::uint32_t>(t), 1, n);
    const std::vector<std::uint32_t> held = words(group.download(mine, n * 4)[0]);
    bool only_mine = true;
    for (std::uint32_t i = 0; i < n; ++i) only_mine = only_mine && held[i] == (i >= range.begin && i < range.end ? model[i] : 0u);
    check(only_mine && range.size() > 0, "the resident share holds this rank's elements only");
    group.all_reduce(mine, whole, Type::U32, Reduce::bit_or, n);
    check(words(group.download(whole, n * 4)[0]) == model, "all_reduce(or) of the shares");
  });
  CHECK(failures.empty());
  CHECK(nccl_stats().live_comms == live);
}

TEST_CASE("sharded dispatch across processes: summed outputs (an atomic histogram) are all-reduced to every rank") {
  Scope scope;
  g_histogram = true;
  constexpr int kRanks = 3;
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("vyre-group-histogram-" + std::to_string(getpid()) + "-" + std::to_string(std::rand()))).string();
  const std::vector<std::uint32_t> values = random_words(5000, 62, 1000);  // 79 workgroups: 27, 26, 26
  std::vector<std::uint32_t> model(16, 0);
  for (const std::uint32_t v : values) ++model[v % 16];
  vyre::DispatchConfig config;
  config.dispatch_elements = values.size();
  const std::uint64_t all_reduces = nccl_stats().all_reduces;
  const std::vector<std::string> failures = run_threads(kRanks, [&](int t, Failures& failed) {
    vyre::CreateOptions options;
    options.device_ordinal = t;
    const Group group = Group::join(open_backend("cuda", options), file, kRanks, static_cast<std::uint32_t>(t));
    const std::vector<ByteVector> out = group.dispatch(histogram_program(), std::vector<Bytes>{bytes(values)},
                                                       {{"values", vyre::host::Placement::split()}, {"bins", vyre::host::Placement::sum()}},
                                                       config);
    if (out.size() != 1 || words(out[0]) != model) failed.add("rank " + std::to_string(t) + ": summed bins differ from the model");
  });
  g_histogram = false;
  CHECK(failures.empty());
  CHECK(nccl_stats().all_reduces - all_reduces == kRanks);  // one all_reduce per rank: the bins
}

TEST_CASE("joining a group that spans processes: a stale id file, a rank 0 that never comes, a rank out of range") {
  Scope scope;
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("vyre-group-stale-" + std::to_string(getpid()) + "-" + std::to_string(std::rand()))).string();
  { std::ofstream stale(file); stale << "old"; }
  expect_error([&] { Group::join(open_backend("cuda"), file, 2, 0); }, VYRE_ERR_INVALID_ARGUMENT);
  std::filesystem::remove(file);
  expect_error([&] { Group::join(open_backend("cuda"), file, 2, 1, 50); }, VYRE_ERR_TIMEOUT);
  expect_error([&] { Group::join(open_backend("cuda"), file, 2, 2); }, VYRE_ERR_INVALID_ARGUMENT);
  {
    ScopedEnv missing("VYRE_NCCL_LIBRARY", "/nonexistent/libnccl.so.2");
    expect_error([&] { Group::join(open_backend("cuda"), file, 2, 0); }, VYRE_ERR_NO_DEVICE);
    CHECK_FALSE(std::filesystem::exists(file));  // nothing written when no id could be made
  }
}
