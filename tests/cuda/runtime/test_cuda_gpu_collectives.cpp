// Collectives of device groups (vyre/group.hpp) on real GPUs through the real NCCL: a group of ONE
// device runs every collective path (all_reduce with every reduction and type, the bitwise ones
// through the exchange + fold kernel, in place; all_gather; reduce_scatter; broadcast), a large
// xor that needs the fold's grid-stride loop, and ordering around resident dispatches. With two
// visible devices, the same on a group of two (integers exact, float sums of two ranks exact and
// repeatable); with fewer the two-device part says why it is skipped. A group spanning processes
// (Group::join, the NCCL id through a file): one rank here, and with two devices two processes
// (this binary started again as rank 1).
// Needs an NVIDIA GPU, else prints why and exits 77; needs NCCL (VYRE_NCCL_LIBRARY, or where
// nccl_library.hpp looks, e.g. $VIRTUAL_ENV's nvidia-nccl-cu* wheel), else prints why and exits 77.
#include <doctest/doctest.h>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "collective_models.hpp"
#include "gpu_support.hpp"
#include "test_programs.hpp"
#include "vyre/group.hpp"

namespace {

using namespace vyre::cudatest;  // test file: helpers of this suite (and its names: gpu_support.hpp)
using vyre::Type;
using vyre::host::Group;
using vyre::host::GroupBuffers;
using vyre::host::Reduce;

const bool kGpu = require_gpu();


const bool kNccl = [] {
  try {
    cuda_group(1).connect();
  } catch (const vyre::Error& error) {
    std::printf("SKIP: no usable NCCL: %s\n", error.what());
    std::fflush(stdout);
    std::exit(error.code() == VYRE_ERR_NO_DEVICE ? 77 : 1);
  }
  return true;
}();

int visible_devices() { return static_cast<int>(open_backend("cuda").devices().size()); }

// A group spanning two processes: rank `rank` on device `rank` all-reduces (sum, and xor through
// the exchange + fold) its seeded u32 data, runs a sharded dispatch across the processes (gathered
// to every rank, and left resident then assembled with all_reduce(or)) and a rank-order f32 sum;
// true when every result equals the models.
constexpr std::size_t kJoinCount = 100003;
bool join_and_reduce(const std::string& file, std::uint32_t ranks, std::uint32_t rank) {
  vyre::CreateOptions options;
  options.device_ordinal = static_cast<int>(rank);
  const Group group = Group::join(open_backend("cuda", options), file, ranks, rank, 120000);
  const std::vector<ByteVector> parts = random_parts(Type::U32, static_cast<int>(ranks), kJoinCount, 555);
  const GroupBuffers mine = group.alloc(kJoinCount * 4), sum = group.alloc(kJoinCount * 4), bits = group.alloc(kJoinCount * 4);
  group.upload(mine, std::vector<Bytes>{parts[rank]});
  group.all_reduce(mine, sum, Type::U32, Reduce::sum, kJoinCount);
  group.all_reduce(mine, bits, Type::U32, Reduce::bit_xor, kJoinCount);
  const bool reduced = group.download(sum, kJoinCount * 4)[0] == fold(Type::U32, Reduce::sum, parts, 0, kJoinCount) &&
                       group.download(bits, kJoinCount * 4)[0] == fold(Type::U32, Reduce::bit_xor, parts, 0, kJoinCount);
  // Sharded dispatch across the processes: each runs its rank's range; every rank gets the
  // single-device bytes (gathered through all_gather).
  constexpr std::uint32_t n = 1 << 16;
  const vyre::Program affine = affine_program(n);
  const std::vector<std::uint32_t> a = random_words(n, 808, 1000000);
  const std::vector<std::uint32_t> model = affine_model(a, n);
  const std::vector<ByteVector> out =
      group.dispatch(affine, std::vector<Bytes>{bytes(a)}, {{"a", vyre::host::Placement::split()}, {"out", vyre::host::Placement::gather()}});
  const bool dispatched = out.size() == 1 && words(out[0]) == model;
  // Left resident: this rank's share only; all_reduce(or) over the zeroed rest assembles it.
  const GroupBuffers in = group.alloc(n * 4), share = group.alloc(n * 4), whole = group.alloc(n * 4);
  group.upload(in, std::vector<Bytes>{bytes(a)});
  const vyre::host::GroupShards shards = group.dispatch_resident(
      affine, std::vector<vyre::host::GroupBinding>{vyre::host::GroupBinding::of(in), vyre::host::GroupBinding::of(share)});
  const vyre::IndexRange range = shards.elements(rank, 1, n);
  const std::vector<std::uint32_t> held = words(group.download(share, n * 4)[0]);
  bool only_mine = range.size() > 0;
  for (std::uint32_t i = 0; i < n; ++i) only_mine = only_mine && held[i] == (i >= range.begin && i < range.end ? model[i] : 0u);
  group.all_reduce(share, whole, Type::U32, Reduce::bit_or, n);
  const bool assembled = words(group.download(whole, n * 4)[0]) == model;
  // Rank-order float sums across processes.
  const std::vector<ByteVector> floats = random_parts(Type::F32, static_cast<int>(ranks), kJoinCount, 556);
  const GroupBuffers f = group.alloc(kJoinCount * 4);
  group.upload(f, std::vector<Bytes>{floats[rank]});
  group.all_reduce(f, f, Type::F32, Reduce::sum_rank_order, kJoinCount);
  const bool ordered = group.download(f, kJoinCount * 4)[0] == fold(Type::F32, Reduce::sum, floats, 0, kJoinCount);
  if (!(reduced && dispatched && only_mine && assembled && ordered))
    std::fprintf(stderr, "rank %u: reduced %d dispatched %d only_mine %d assembled %d ordered %d\n", rank, reduced, dispatched,
                 only_mine, assembled, ordered);
  return reduced && dispatched && only_mine && assembled && ordered;
}

// The second process of the two-process case: this binary started again with
// VYRE_GPU_TEST_JOIN_FILE set; it plays rank 1 and exits (0: its results were right).
const bool kJoinChild = [] {
  const char* file = std::getenv("VYRE_GPU_TEST_JOIN_FILE");
  if (file == nullptr) return false;
  try {
    std::exit(join_and_reduce(file, 2, 1) ? 0 : 3);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "rank 1: %s\n", error.what());
    std::exit(4);
  }
}();

GroupBuffers with_data(const Group& group, const std::vector<ByteVector>& parts) {
  const GroupBuffers buffers = group.alloc(parts[0].size());
  group.upload(buffers, views(parts));
  return buffers;
}

bool is_bitwise(Reduce op) { return op == Reduce::bit_and || op == Reduce::bit_or || op == Reduce::bit_xor; }

// Every collective, reduction and type on `group`, against the host models.
void every_collective(const Group& group) {
  const int ranks = static_cast<int>(group.size());
  const auto n = static_cast<std::size_t>(ranks);
  constexpr std::size_t count = 4099;  // not a multiple of anything
  for (const Type t : {Type::U32, Type::I32, Type::U64, Type::I64, Type::F32, Type::F64}) {
    CAPTURE(vyre::type_name(t));
    const std::size_t size = vyre::byte_size(t);
    for (const Reduce op : {Reduce::sum, Reduce::min, Reduce::max, Reduce::bit_and, Reduce::bit_or, Reduce::bit_xor,
                            Reduce::sum_rank_order}) {
      if (vyre::is_float(t) && is_bitwise(op)) continue;
      CAPTURE(static_cast<int>(op));
      const std::vector<ByteVector> parts = random_parts(t, ranks, count, 100 + static_cast<std::uint64_t>(op));
      const GroupBuffers send = with_data(group, parts);
      const GroupBuffers recv = group.alloc(count * size);
      group.all_reduce(send, recv, t, op, count);
      const ByteVector expected = fold(t, op, parts, 0, count);
      for (const ByteVector& got : group.download(recv, count * size)) CHECK(got == expected);
      group.all_reduce(send, send, t, op, count);  // in place
      for (const ByteVector& got : group.download(send, count * size)) CHECK(got == expected);

      const std::vector<ByteVector> big = random_parts(t, ranks, n * count, 300 + static_cast<std::uint64_t>(op));
      const GroupBuffers scattered = group.alloc(count * size);
      group.reduce_scatter(with_data(group, big), scattered, t, op, count);
      const std::vector<ByteVector> got = group.download(scattered, count * size);
      for (std::size_t r = 0; r < n; ++r) CHECK(got[r] == fold(t, op, big, r * count, count));
    }
    const std::vector<ByteVector> parts = random_parts(t, ranks, count, 7);
    const GroupBuffers gathered = group.alloc(n * count * size);
    group.all_gather(with_data(group, parts), gathered, t, count);
    ByteVector all;
    for (const ByteVector& p : parts) all.insert(all.end(), p.begin(), p.end());
    for (const ByteVector& got : group.download(gathered, all.size())) CHECK(got == all);
    for (std::uint32_t root = 0; root < n; ++root) {
      const GroupBuffers buffers = with_data(group, parts);
      group.broadcast(buffers, buffers, t, count, root);  // in place
      for (const ByteVector& got : group.download(buffers, count * size)) CHECK(got == parts[root]);
    }
  }
}

// written = affine(a) by a resident dispatch; all_reduce(written); after = affine(reduced): no
// explicit synchronisation between them.
void ordering(const Group& group) {
  constexpr std::uint32_t n = 1 << 16;
  const vyre::Program affine = affine_program(n);
  const GroupBuffers inputs = group.alloc(n * 4), written = group.alloc(n * 4), reduced = group.alloc(n * 4),
                     after = group.alloc(n * 4);
  std::vector<std::uint32_t> sum(n, 0);
  std::vector<vyre::host::Program> programs;
  for (std::size_t r = 0; r < group.size(); ++r) {
    const std::vector<std::uint32_t> a = random_words(n, 50 + static_cast<std::uint32_t>(r), 1000000);
    group.member(r).upload(inputs[r], 0, bytes(a));
    programs.push_back(group.member(r).compile(affine));
    const std::vector<Binding> bindings{Binding::of(inputs[r]), Binding::of(written[r])};
    group.member(r).dispatch_resident(programs[r], bindings);
    const std::vector<std::uint32_t> model = affine_model(a, n);
    for (std::uint32_t i = 0; i < n; ++i) sum[i] += model[i];
  }
  group.all_reduce(written, reduced, Type::U32, Reduce::sum, n);
  for (std::size_t r = 0; r < group.size(); ++r) {
    const std::vector<Binding> bindings{Binding::of(reduced[r]), Binding::of(after[r])};
    group.member(r).dispatch_resident(programs[r], bindings);
  }
  for (const ByteVector& got : group.download(reduced, n * 4)) CHECK(same_words("reduced", sum, words(got)));
  const std::vector<std::uint32_t> expected = affine_model(sum, n);
  for (const ByteVector& got : group.download(after, n * 4)) CHECK(same_words("after", expected, words(got)));
}

}  // namespace

TEST_CASE("a group of one device runs every collective through NCCL") {
  const Group group = cuda_group(1);
  every_collective(group);
}

TEST_CASE("a group of one device: a large xor (the fold's grid-stride loop) and ordering around dispatches") {
  const Group group = cuda_group(1);
  constexpr std::size_t count = (std::size_t{1} << 24) + 12345;  // more words than one grid of the fold covers
  const std::vector<ByteVector> parts = random_parts(Type::U32, 1, count, 3);
  const GroupBuffers send = with_data(group, parts);
  const GroupBuffers recv = group.alloc(count * 4);
  group.all_reduce(send, recv, Type::U32, Reduce::bit_xor, count);
  CHECK(group.download(recv, count * 4)[0] == parts[0]);
  ordering(group);
}

TEST_CASE("a group of two devices: every collective exact, float sums repeatable, ordering") {
  const int devices = visible_devices();
  if (devices < 2) {
    MESSAGE("SKIP two-device collectives: " << devices << " CUDA device(s) visible");
    return;
  }
  const Group group = cuda_group(2);
  every_collective(group);
  ordering(group);
  // The same f32 sum twice gives the same bytes (two ranks: a + b, in any order).
  constexpr std::size_t count = 1 << 20;
  const std::vector<ByteVector> parts = random_parts(Type::F32, 2, count, 77);
  const GroupBuffers send = with_data(group, parts);
  const GroupBuffers first = group.alloc(count * 4), second = group.alloc(count * 4);
  group.all_reduce(send, first, Type::F32, Reduce::sum, count);
  group.all_reduce(send, second, Type::F32, Reduce::sum, count);
  CHECK(group.download(first, count * 4) == group.download(second, count * 4));
  CHECK(group.download(first, count * 4)[1] == fold(Type::F32, Reduce::sum, parts, 0, count));

  // Bandwidth of a 1 GiB f32 all_reduce (reported, not checked): NCCL's bus bandwidth figure,
  // 2 (n - 1) / n * bytes / time, averaged over 10 calls after 2 warm-ups; each call is waited
  // for by downloading 4 bytes of its result (ordered after it).
  constexpr std::uint64_t gib = std::uint64_t{1} << 30;
  const GroupBuffers big_send = group.alloc(gib), big_recv = group.alloc(gib);
  auto once = [&] {
    group.all_reduce(big_send, big_recv, Type::F32, Reduce::sum, gib / 4);
    (void)group.download(big_recv, 4);
  };
  once();
  once();
  const auto start = std::chrono::steady_clock::now();
  constexpr int kCalls = 10;
  for (int i = 0; i < kCalls; ++i) once();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / kCalls;
  MESSAGE("all_reduce 1 GiB f32 over 2 devices: " << seconds * 1e3 << " ms per call, bus bandwidth "
                                                   << (2.0 * (2 - 1) / 2) * static_cast<double>(gib) / seconds / 1e9
                                                   << " GB/s (NCCL_ALGO=" << std::string(std::getenv("NCCL_ALGO") ? std::getenv("NCCL_ALGO") : "default")
                                                   << ")");
}

TEST_CASE("a group that spans processes: one rank (the id through a file, real NCCL), and two processes on two devices") {
  const std::string file = "/tmp/vyre-gpu-join-" + std::to_string(getpid());
  CHECK(join_and_reduce(file, 1, 0));
  CHECK_FALSE(std::filesystem::exists(file));
  if (visible_devices() < 2) {
    MESSAGE("SKIP the two-process case: fewer than 2 CUDA devices visible");
    return;
  }
  const std::string two = file + "-2";
  const std::string env = "VYRE_GPU_TEST_JOIN_FILE=" + two;
  std::vector<char*> child_env;
  for (char** e = environ; *e != nullptr; ++e) child_env.push_back(*e);
  child_env.push_back(const_cast<char*>(env.c_str()));
  child_env.push_back(nullptr);
  char self[] = "/proc/self/exe";
  char* argv[] = {self, nullptr};
  pid_t child = 0;
  REQUIRE(posix_spawn(&child, "/proc/self/exe", nullptr, nullptr, argv, child_env.data()) == 0);
  bool ok = false;
  try {
    ok = join_and_reduce(two, 2, 0);
  } catch (const vyre::Error& error) {
    MESSAGE("rank 0: " << std::string(error.what()));
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(ok);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
