// Device groups (vyre/group.hpp) on the fake driver with several fake devices (CPU only): a group
// of 1, 2 and 3 members gives the bytes of a single-device dispatch for an elementwise program
// (input split or replicated, output gathered) and a histogram built with atomics (input split,
// bins summed); each member runs only its shard (the invocations run add up to the dispatch's);
// grid_sync programs and placements that do not fit are refused with their codes.
#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <vector>

#include "fake_driver/fake_cuda.h"
#include "fake_kernels.hpp"
#include "gpu_support.hpp"
#include "test_programs.hpp"
#include "vyre/builder.hpp"
#include "vyre/group.hpp"

namespace {

using namespace vyre::cudatest;  // test file: helpers of this suite (and its names: gpu_support.hpp)
using vyre::host::Group;
using vyre::host::Placement;

const bool kFakeDriver = use_fake_driver("fake_cuda_group_cache_home");

constexpr std::uint32_t kWorkgroup = 64;  // both programs' workgroup size
constexpr std::uint32_t kBins = 16;

// values: read u32 (runtime-sized); bins: output u32[16]. bins[values[i] % 16] += 1, atomically.
vyre::Program histogram_program() {
  using namespace vyre;
  using namespace vyre::dsl;
  ProgramBuilder b;
  b.workgroup(kWorkgroup);
  Buf values = b.buffer("values", Access::Read, Type::U32);
  b.buffer("bins", Access::Output, Type::U32, kBins);
  Expr i = b.let("i", invocation_id(0));
  b.if_(lt(i, values.len()), [&] { b.let("previous", atomic(AtomicOp::Add, "bins", values[i] % u32(kBins), u32(1))); });
  return b.build();
}

// Which program the kernels below emulate, and how many invocations they ran.
enum class Emulated { Affine, Histogram };
std::atomic<Emulated> g_emulated{Emulated::Affine};
std::atomic<std::uint64_t> g_invocations{0};

std::uint32_t* words_at(std::uint64_t address) { return reinterpret_cast<std::uint32_t*>(address); }

// Both programs have two buffers: params a/values, out/bins, |a|, |out|, N, tail
// [, workgroup_base, grid_x] (plugins/cuda/src/lowering.hpp). A sharded launch's invocations start
// at workgroup_base * the workgroup size.
void emulate(const fake_cuda_launch* launch, void*) {
  const fake_cuda_launch& l = *launch;
  const auto* p = l.params;
  const bool sharded = l.param_count == 8;
  const std::uint64_t per_thread = std::string(l.entry) == "vyre_elementwise" ? 4 : 1;
  const std::uint64_t total = std::uint64_t{l.grid[0]} * l.grid[1] * l.grid[2] * l.block[0] * l.block[1] * l.block[2] * per_thread;
  const std::uint64_t first = sharded ? p[6] * kWorkgroup : 0;
  for (std::uint64_t g = first; g < first + total; ++g) {
    if (p[5] != 0 && g >= p[4]) continue;  // tail guard
    if (g >= p[2]) continue;               // i < len(a)
    ++g_invocations;
    if (g_emulated == Emulated::Affine) {
      if (g < p[3]) words_at(p[1])[g] = words_at(p[0])[g] * 3 + static_cast<std::uint32_t>(g);
    } else {
      ++words_at(p[1])[words_at(p[0])[g] % kBins];
    }
  }
}

// A scope whose kernels are the emulators above, on `devices` fake devices.
struct GroupScope {
  explicit GroupScope(Emulated which) : scope(Kernel::None) {
    g_emulated = which;
    fake_cuda_set_kernel(&emulate, nullptr);
  }
  FakeScope scope;
  ScopedEnv devices{"FAKE_CUDA_DEVICES", "3"};
};


std::vector<std::uint32_t> histogram_model(const std::vector<std::uint32_t>& values) {
  std::vector<std::uint32_t> bins(kBins, 0);
  for (std::uint32_t v : values) ++bins[v % kBins];
  return bins;
}

}  // namespace

TEST_CASE("a group of 1, 2 and 3 devices gives the single-device bytes of an elementwise program") {
  GroupScope scope(Emulated::Affine);
  constexpr std::uint32_t n = 1000;  // 16 workgroups of 64: shares 16 | 8, 8 | 6, 5, 5
  const vyre::Program program = affine_program(n);
  const std::vector<std::uint32_t> a = random_words(n, 7, 100000);
  const std::vector<Bytes> inputs{bytes(a)};
  g_invocations = 0;
  const vyre::host::Backend one = open_backend("cuda");
  const auto single = one.dispatch(one.compile(program), inputs);
  REQUIRE(g_invocations == n);
  REQUIRE(words(single[0]) == affine_model(a, n));
  for (int ranks = 1; ranks <= 3; ++ranks) {
    CAPTURE(ranks);
    const Group group = cuda_group(ranks);
    for (const Placement input : {Placement::split(), Placement::replicate()}) {
      g_invocations = 0;
      const auto out = group.dispatch(program, inputs, {{"a", input}, {"out", Placement::gather()}});
      CHECK(g_invocations == n);  // every invocation ran exactly once, on some member
      REQUIRE(out.size() == 1);
      CHECK(out[0] == single[0]);
    }
  }
}

TEST_CASE("a histogram with atomics: split values, summed bins equal one device's, for 1, 2 and 3 devices") {
  GroupScope scope(Emulated::Histogram);
  const vyre::Program program = histogram_program();
  const std::vector<std::uint32_t> values = random_words(5000, 11, 1000);
  const std::vector<Bytes> inputs{bytes(values)};
  vyre::DispatchConfig config;
  config.dispatch_elements = values.size();  // N defaults to the output's 16 elements
  const vyre::host::Backend one = open_backend("cuda");
  const auto single = one.dispatch(one.compile(program), inputs, config);
  REQUIRE(words(single[0]) == histogram_model(values));
  for (int ranks = 1; ranks <= 3; ++ranks) {
    CAPTURE(ranks);
    g_invocations = 0;
    const auto out = cuda_group(ranks).dispatch(program, inputs, {{"values", Placement::split()}, {"bins", Placement::sum()}}, config);
    CHECK(g_invocations == values.size());
    REQUIRE(out.size() == 1);
    CHECK(out[0] == single[0]);
  }
}

TEST_CASE("a group larger than the grid leaves members without work and still gives the result") {
  GroupScope scope(Emulated::Affine);
  const vyre::Program program = affine_program(10);  // one workgroup: shares 1 | 0 | 0
  const std::vector<std::uint32_t> a = random_words(10, 3, 100000);
  g_invocations = 0;
  const auto out = cuda_group(3).dispatch(program, std::vector<Bytes>{bytes(a)}, {{"out", Placement::gather()}});
  CHECK(g_invocations == 10);
  CHECK(words(out[0]) == affine_model(a, 10));
}

TEST_CASE("group dispatch refuses grid_sync programs, unfit placements and other backends, with codes and a Fix") {
  GroupScope scope(Emulated::Affine);
  const Group group = cuda_group(2);
  const std::uint64_t launches = FakeScope::stats().kernel_launches;
  const std::vector<std::uint32_t> x(512, 1);
  expect_error([&] { group.dispatch(rotate_program(512), std::vector<Bytes>{bytes(x)}, {{"x", Placement::split()}, {"t", Placement::gather()}}); },
               VYRE_ERR_UNSUPPORTED);
  CHECK(FakeScope::stats().kernel_launches == launches);  // refused before any device work

  const vyre::Program affine = affine_program(100);
  const std::vector<std::uint32_t> a(100, 2);
  const std::vector<Bytes> inputs{bytes(a)};
  expect_error([&] { group.dispatch(affine, inputs); }, VYRE_ERR_INVALID_ARGUMENT);  // out has no placement
  expect_error([&] { group.dispatch(affine, inputs, {{"out", Placement::replicate()}}); }, VYRE_ERR_INVALID_ARGUMENT);
  expect_error([&] { group.dispatch(affine, inputs, {{"a", Placement::gather()}, {"out", Placement::gather()}}); },
               VYRE_ERR_INVALID_ARGUMENT);
  expect_error([&] { group.dispatch(affine, inputs, {{"nope", Placement::split()}, {"out", Placement::gather()}}); },
               VYRE_ERR_INVALID_ARGUMENT);
  expect_error([&] { group.dispatch(affine, inputs, {{"out", Placement::gather(0)}}); }, VYRE_ERR_INVALID_ARGUMENT);
  const std::vector<std::uint32_t> short_a(99, 2);
  expect_error([&] { group.dispatch(xor_program(100), std::vector<Bytes>{bytes(a), bytes(short_a)}, {{"out", Placement::gather()}}); },
               VYRE_ERR_INVALID_ARGUMENT);
  vyre::DispatchConfig fixpoint;
  fixpoint.fixpoint_iterations = 2;
  expect_error([&] { group.dispatch(affine, inputs, {{"out", Placement::gather()}}, fixpoint); }, VYRE_ERR_UNSUPPORTED);
  CHECK(FakeScope::stats().kernel_launches == launches);

  // One member's share past the grid (100 elements: 2 workgroups) is refused by the plugin.
  const vyre::host::Backend& member = group.member(0);
  const vyre::host::Program compiled = member.compile(affine);
  const vyre::host::ResidentBuffer out = member.alloc(400);
  const std::vector<vyre::host::Binding> bindings{vyre::host::Binding::host_bytes(inputs[0]), vyre::host::Binding::of(out)};
  expect_error([&] { member.dispatch_resident_shard(compiled, bindings, vyre::ShardRange{1, 2}); }, VYRE_ERR_INVALID_ARGUMENT);
  member.dispatch_resident_shard(compiled, bindings, vyre::ShardRange{1, 1});  // the second workgroup alone
  const std::vector<std::uint32_t> got = words(member.download(out, 0, 400));
  CHECK(got[63] == 0);                       // the first workgroup did not run
  CHECK(got[64] == 2 * 3 + 64);              // the second did, with global ids
  CHECK(got[99] == 2 * 3 + 99);

  expect_error([] { Group(std::vector<vyre::host::Backend>{}); }, VYRE_ERR_INVALID_ARGUMENT);
  expect_error([] { Group(std::vector<vyre::host::Backend>{open_backend("reference_cpu")}); }, VYRE_ERR_UNSUPPORTED);
  expect_error([] { Group(std::vector<vyre::host::Backend>{open_backend("cuda"), open_backend("reference_cpu")}); },
               VYRE_ERR_INVALID_ARGUMENT);
}

TEST_CASE("dispatch_resident leaves each member's shard on its device, and the next dispatch reads it there") {
  GroupScope scope(Emulated::Affine);
  using vyre::host::GroupBinding;
  using vyre::host::GroupBuffers;
  constexpr std::uint32_t n = 1000;  // 16 workgroups of 64
  const vyre::Program program = affine_program(n);
  const std::vector<std::uint32_t> a = random_words(n, 5, 100000);
  const std::vector<std::uint32_t> once = affine_model(a, n);
  const std::vector<std::uint32_t> twice = affine_model(once, n);
  for (int ranks = 1; ranks <= 3; ++ranks) {
    CAPTURE(ranks);
    const Group group = cuda_group(ranks);
    const GroupBuffers in = group.alloc(n * 4);
    group.upload(in, std::vector<Bytes>(static_cast<std::size_t>(ranks), bytes(a)));
    const GroupBuffers out = group.alloc(n * 4);
    g_invocations = 0;
    const vyre::host::GroupShards shards =
        group.dispatch_resident(program, std::vector<GroupBinding>{GroupBinding::of(in), GroupBinding::of(out)});
    CHECK(g_invocations == n);  // every invocation once, on some member
    CHECK(shards.ranges == vyre::shard_ranges(16, static_cast<std::uint32_t>(ranks)));
    // Each member holds exactly its shard's elements; the rest of its buffer is untouched (zero).
    auto check_shards = [&](const GroupBuffers& buffers, const std::vector<std::uint32_t>& model) {
      const std::vector<ByteVector> got = group.download(buffers, n * 4);
      std::uint64_t covered = 0;
      for (int r = 0; r < ranks; ++r) {
        const vyre::IndexRange mine = shards.elements(static_cast<std::uint32_t>(r), 1, n);
        covered += mine.size();
        const std::vector<std::uint32_t> w = words(got[static_cast<std::size_t>(r)]);
        for (std::uint32_t i = 0; i < n; ++i) {
          const bool in_shard = i >= mine.begin && i < mine.end;
          if (w[i] != (in_shard ? model[i] : 0u)) {
            FAIL_CHECK("member " << r << " element " << i << ": " << w[i]);
            return;
          }
        }
      }
      CHECK(covered == n);
    };
    check_shards(out, once);
    // The next dispatch takes the resident shards as its input, with no gather in between.
    const GroupBuffers out2 = group.alloc(n * 4);
    group.dispatch_resident(program, std::vector<GroupBinding>{GroupBinding::of(out), GroupBinding::of(out2)});
    check_shards(out2, twice);
    // Host bytes for a read buffer: every member reads them.
    group.dispatch_resident(program, std::vector<GroupBinding>{GroupBinding::host_bytes(bytes(a)), GroupBinding::of(out2)});
    check_shards(out2, once);
  }
}

TEST_CASE("dispatch_resident refuses bindings that do not fit, with codes and a Fix") {
  GroupScope scope(Emulated::Affine);
  using vyre::host::GroupBinding;
  using vyre::host::GroupBuffers;
  const Group group = cuda_group(2);
  const vyre::Program program = affine_program(100);
  const GroupBuffers in = group.alloc(400), out = group.alloc(400);
  const std::vector<std::uint32_t> a(100, 1);
  const std::uint64_t launches = FakeScope::stats().kernel_launches;
  auto run = [&](std::vector<GroupBinding> bindings) { group.dispatch_resident(program, bindings); };
  expect_error([&] { run({GroupBinding::of(in)}); }, VYRE_ERR_INVALID_ARGUMENT);  // one binding short
  expect_error([&] { run({GroupBinding::of(in), GroupBinding::of(out), GroupBinding::of(out)}); }, VYRE_ERR_INVALID_ARGUMENT);
  expect_error([&] { run({GroupBinding::of(in), GroupBinding::of(GroupBuffers{out[0]})}); }, VYRE_ERR_INVALID_ARGUMENT);
  expect_error([&] { run({GroupBinding::of(in), GroupBinding::of(GroupBuffers{out[1], out[0]})}); }, VYRE_ERR_INVALID_ARGUMENT);
  expect_error([&] { run({GroupBinding::of(in), GroupBinding::of(GroupBuffers{out[0], {}})}); }, VYRE_ERR_INVALID_ARGUMENT);
  const GroupBuffers uneven{group.member(0).alloc(400), group.member(1).alloc(404)};
  expect_error([&] { run({GroupBinding::of(uneven), GroupBinding::of(out)}); }, VYRE_ERR_INVALID_ARGUMENT);
  expect_error([&] { run({GroupBinding::of(in), GroupBinding::host_bytes(bytes(a))}); }, VYRE_ERR_INVALID_ARGUMENT);
  const GroupBuffers x = group.alloc(512 * 4), t = group.alloc(512 * 4);
  expect_error([&] { group.dispatch_resident(rotate_program(512), std::vector<GroupBinding>{GroupBinding::of(x), GroupBinding::of(t)}); },
               VYRE_ERR_UNSUPPORTED);
  CHECK(FakeScope::stats().kernel_launches == launches);  // refused before any device work
}
