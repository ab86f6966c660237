// Device groups (vyre/group.hpp) on a real GPU: a group of one device, and groups of two and three
// members on that same device (which shard the grid exactly as members on distinct devices do), give
// the bytes of a single-device dispatch for an elementwise program (input split or replicated), a
// read_write program (split and gathered back), an atomic histogram (values split, bins summed) and
// the histogram example; a grid_sync program is refused. Where two or more GPUs are visible, a
// group over all of them equals one device for a matmul, a histogram and an elementwise program.
// Needs an NVIDIA GPU, else prints why and exits 77.
#include <doctest/doctest.h>

#include <vector>

#include "gpu_support.hpp"
#include "test_programs.hpp"
#include "vyre/builder.hpp"
#include "vyre/group.hpp"
#include "vyre/json.hpp"

namespace {

using namespace vyre::cudatest;  // test file: helpers of this suite (and its names: gpu_support.hpp)
using vyre::host::Group;
using vyre::host::Placement;

const bool kGpu = require_gpu();

// `members` instances, all on device 0.
Group group_on_device0(int members) {
  std::vector<vyre::host::Backend> all;
  vyre::CreateOptions options;
  options.device_ordinal = 0;
  for (int i = 0; i < members; ++i) all.push_back(open_backend("cuda", options));
  return Group(std::move(all));
}

// values: read u32 (runtime-sized); bins: output u32[256]. bins[values[i] % 256] += 1, atomically.
vyre::Program atomic_histogram() {
  using namespace vyre;
  using namespace vyre::dsl;
  ProgramBuilder b;
  b.workgroup(128);
  Buf values = b.buffer("values", Access::Read, Type::U32);
  b.buffer("bins", Access::Output, Type::U32, 256);
  Expr i = b.let("i", invocation_id(0));
  b.if_(lt(i, values.len()), [&] { b.let("previous", atomic(AtomicOp::Add, "bins", values[i] % u32(256), u32(1))); });
  return b.build();
}

// c = a * b for n x n f32 matrices, one invocation per element of c (row-major), fma in k order.
vyre::Program naive_matmul(std::uint32_t n) {
  using namespace vyre;
  using namespace vyre::dsl;
  ProgramBuilder b;
  b.workgroup(256);
  Buf a = b.buffer("a", Access::Read, Type::F32, n * n);
  Buf m = b.buffer("b", Access::Read, Type::F32, n * n);
  Buf c = b.buffer("c", Access::Output, Type::F32, n * n);
  Expr i = b.let("i", invocation_id(0));
  b.if_(lt(i, u32(n * n)), [&] {
    Expr row = b.let("row", i / u32(n));
    Expr col = b.let("col", i % u32(n));
    b.let("acc", f32(0.0f));
    b.loop("k", u32(0), u32(n), [&](Expr k) { b.assign("acc", fma(a[row * u32(n) + k], m[k * u32(n) + col], var("acc"))); });
    b.store(c, i, var("acc"));
  });
  return b.build();
}

std::vector<float> random_floats(std::size_t n, std::uint32_t seed) {
  std::vector<float> out(n);
  const std::vector<std::uint32_t> words = random_words(n, seed);
  for (std::size_t k = 0; k < n; ++k) out[k] = static_cast<float>(words[k] % 2001) / 1000.0f - 1.0f;
  return out;
}

std::vector<vyre::host::ByteVector> single(const vyre::Program& program, const std::vector<Bytes>& inputs,
                                           const vyre::DispatchConfig& config = {}) {
  return cuda_device0().dispatch(cuda_device0().compile(program), inputs, config);
}

}  // namespace

TEST_CASE("group dispatch equals one device: elementwise, read_write, atomic histogram, example histogram") {
  const std::uint32_t n = (1u << 20) + 333;  // a ragged last workgroup
  const std::vector<std::uint32_t> a = random_words(n, 40), y = random_words(n, 41), x = random_words(n, 42);
  const std::vector<std::uint32_t> values = random_words(3u << 20, 43);
  vyre::DispatchConfig per_value;
  per_value.dispatch_elements = values.size();
  const vyre::Program example = vyre::load_program_file(example_path("histogram.json"));
  const std::vector<std::uint32_t> example_values = random_words(4096, 44);

  const auto affine_1 = single(affine_program(n), {bytes(a)});
  const auto mix_1 = single(mix_program(n), {bytes(x), bytes(y)});
  const auto hist_1 = single(atomic_histogram(), {bytes(values)}, per_value);
  const auto example_1 = single(example, {bytes(example_values)});
  for (int members = 1; members <= 3; ++members) {
    CAPTURE(members);
    const Group group = group_on_device0(members);
    for (const Placement input : {Placement::split(), Placement::replicate()})
      CHECK(group.dispatch(affine_program(n), std::vector<Bytes>{bytes(a)}, {{"a", input}, {"out", Placement::gather()}}) == affine_1);
    CHECK(group.dispatch(mix_program(n), std::vector<Bytes>{bytes(x), bytes(y)}, {{"x", Placement::split()}, {"y", Placement::split()}}) == mix_1);
    CHECK(group.dispatch(atomic_histogram(), std::vector<Bytes>{bytes(values)}, {{"values", Placement::split()}, {"bins", Placement::sum()}},
                         per_value) == hist_1);
    CHECK(group.dispatch(example, std::vector<Bytes>{bytes(example_values)}, {{"bins", Placement::sum()}}) == example_1);
  }
}

TEST_CASE("group dispatch refuses a grid_sync program on the GPU") {
  const std::vector<std::uint32_t> x(4096, 1);
  expect_error([&] { group_on_device0(2).dispatch(rotate_program(4096), std::vector<Bytes>{bytes(x)}, {{"x", Placement::split()}, {"t", Placement::gather()}}); },
               VYRE_ERR_UNSUPPORTED);
}

TEST_CASE("a group over every visible device equals one device: matmul, histogram, elementwise") {
  const std::size_t devices = cuda_device0().devices().size();
  if (devices < 2) {
    MESSAGE("one device visible: the multi-device group is checked on machines with two or more GPUs");
    return;
  }
  const Group group = cuda_group(static_cast<int>(devices));
  MESSAGE("group over " << devices << " devices");
  const std::uint32_t n = 512;
  const std::vector<float> a = random_floats(std::size_t{n} * n, 50), m = random_floats(std::size_t{n} * n, 51);
  const auto product_1 = single(naive_matmul(n), {vyre::host::as_bytes(a), vyre::host::as_bytes(m)});
  CHECK(group.dispatch(naive_matmul(n), std::vector<Bytes>{vyre::host::as_bytes(a), vyre::host::as_bytes(m)},
                       {{"a", Placement::replicate()}, {"b", Placement::replicate()}, {"c", Placement::gather()}}) == product_1);
  const std::vector<std::uint32_t> values = random_words(3u << 20, 52);
  vyre::DispatchConfig per_value;
  per_value.dispatch_elements = values.size();
  CHECK(group.dispatch(atomic_histogram(), std::vector<Bytes>{bytes(values)}, {{"values", Placement::split()}, {"bins", Placement::sum()}},
                       per_value) == single(atomic_histogram(), {bytes(values)}, per_value));
  const std::uint32_t count = (1u << 22) + 7;
  const std::vector<std::uint32_t> x = random_words(count, 53);
  CHECK(group.dispatch(affine_program(count), std::vector<Bytes>{bytes(x)}, {{"a", Placement::split()}, {"out", Placement::gather()}}) ==
        single(affine_program(count), {bytes(x)}));
}

TEST_CASE("dispatch_resident leaves each member's share on its device (every visible device, or 2 members on device 0)") {
  const std::size_t devices = cuda_device0().devices().size();
  const Group group = devices >= 2 ? cuda_group(static_cast<int>(devices)) : group_on_device0(2);
  MESSAGE("resident group dispatch over " << group.size() << " members (" << devices << " device(s) visible)");
  const std::uint32_t n = (1u << 20) + 3;
  const std::vector<std::uint32_t> a = random_words(n, 60);
  const std::vector<std::uint32_t> once = words(single(affine_program(n), {bytes(a)})[0]);
  const std::vector<std::uint32_t> twice = words(single(affine_program(n), {bytes(once)})[0]);
  using vyre::host::GroupBinding;
  const vyre::host::GroupBuffers in = group.alloc(std::uint64_t{n} * 4), out = group.alloc(std::uint64_t{n} * 4),
                                 next = group.alloc(std::uint64_t{n} * 4);
  group.upload(in, std::vector<Bytes>(group.size(), bytes(a)));
  const vyre::host::GroupShards shards =
      group.dispatch_resident(affine_program(n), std::vector<GroupBinding>{GroupBinding::of(in), GroupBinding::of(out)});
  // The next dispatch reads the shares where they are.
  group.dispatch_resident(affine_program(n), std::vector<GroupBinding>{GroupBinding::of(out), GroupBinding::of(next)});
  std::uint64_t covered = 0;
  for (std::size_t r = 0; r < group.size(); ++r) {
    const vyre::IndexRange mine = shards.elements(static_cast<std::uint32_t>(r), 1, n);
    covered += mine.size();
    for (const auto& [buffers, model] : {std::pair{&out, &once}, std::pair{&next, &twice}}) {
      const std::vector<std::uint32_t> got = words(group.member(r).download((*buffers)[r], 0, std::uint64_t{n} * 4));
      bool right = true;
      for (std::uint32_t i = 0; i < n && right; ++i) right = got[i] == (i >= mine.begin && i < mine.end ? (*model)[i] : 0u);
      CHECK(right);
    }
  }
  CHECK(covered == n);
}
