// The CUDA plugin's whole host side on a fake driver (fake_driver/fake_cuda.h), without a GPU:
// driver loading through cuGetProcAddress, device probing, module loading, host/async/timed
// dispatch, grid_sync planning (cooperative and split), launch checks, pools, resident buffers and
// their cross-stream ordering, sequences replayed as graphs with in-place updates, pipelines
// replayed from captured graphs, the memory budget, concurrency and teardown. The fake runs queued
// work lazily, so a missing stream dependency gives a wrong result; kernels run through emulators
// of the test programs below; any misuse of the driver API counts as a violation.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <mutex>
#include <random>
#include <thread>

#include "fake_driver/fake_cuda.h"
#include "fake_kernels.hpp"
#include "gpu_support.hpp"
#include "test_programs.hpp"

namespace {

using namespace vyre::cudatest;  // test file: helpers of this suite (and its names: gpu_support.hpp)

// Point the plugin at the fake driver before anything creates an instance.
const bool kFakeDriver = use_fake_driver("fake_cuda_cache_home");

const vyre::host::Backend& fake() {
  static const vyre::host::Backend backend = open_backend("cuda");
  return backend;
}

// The fake's tests draw small words (below 100000).
constexpr std::uint32_t kWordBound = 100000;

}  // namespace

TEST_CASE("the plugin opens the fake driver, probes the device and prepares the JIT cache") {
  FakeScope scope(Kernel::None);
  const vyre_device_profile profile = fake().device_profile();
  CHECK(std::string(profile.name) == "Fake CUDA Device 0");
  CHECK(std::string(profile.target) == "sm_90");
  CHECK(profile.compute_major == 9);
  CHECK(profile.multiprocessors == 132);
  CHECK(profile.max_workgroup_size[2] == 64);
  CHECK(profile.max_grid_size[1] == 65535);
  CHECK(profile.total_memory_bytes == (1ull << 30));
  CHECK(profile.l2_cache_bytes == 52428800);
  CHECK(profile.cooperative_launch == 1);
  CHECK(profile.memory_bandwidth_gbps == doctest::Approx(3352.32));
  CHECK(profile.driver_version == 12040);
  const std::string expected_cache = std::string(VYRE_BINARY_DIR) + "/fake_cuda_cache_home/vyre";
  REQUIRE(std::getenv("CUDA_CACHE_PATH") != nullptr);
  CHECK(std::string(std::getenv("CUDA_CACHE_PATH")) == expected_cache);
  CHECK(std::filesystem::is_directory(expected_cache));
}

TEST_CASE("the plugin enumerates every visible device without an instance, and creates on any of them") {
  FakeScope scope(Kernel::None);
  const auto* group = reinterpret_cast<const vyre_device_group_extension*>(fake().extension(VYRE_EXTENSION_DEVICE_GROUP));
  REQUIRE(group != nullptr);
  REQUIRE(group->base.struct_size >= VYRE_DEVICE_GROUP_EXTENSION_V1_1_SIZE);
  {
    ScopedEnv devices("FAKE_CUDA_DEVICES", "3");
    const std::vector<vyre_device_profile> listed = fake().devices();
    REQUIRE(listed.size() == 3);
    for (int ordinal = 0; ordinal < 3; ++ordinal) {
      const vyre_device_profile& p = listed[static_cast<std::size_t>(ordinal)];
      CHECK(std::string(p.name) == "Fake CUDA Device " + std::to_string(ordinal));
      CHECK(std::string(p.target) == "sm_90");
      CHECK(p.compute_major == 9);
      CHECK(p.compute_minor == 0);
      CHECK(p.total_memory_bytes == (1ull << 30));
      CHECK(p.kind == VYRE_DEVICE_KIND_GPU);
    }
    vyre::CreateOptions options;
    options.device_ordinal = 2;
    const vyre_device_profile third = open_backend("cuda", options).device_profile();
    CHECK(std::memcmp(&third, &listed[2], sizeof third) == 0);  // what an instance there reports
  }
  {
    ScopedEnv devices("FAKE_CUDA_DEVICES", "0");
    std::uint32_t count = 99;
    vyre_error* error = nullptr;
    CHECK(group->device_count(&count, &error) == VYRE_OK);
    CHECK(count == 0);
    vyre_device_profile profile{};
    profile.struct_size = sizeof profile;
    CHECK(group->device_describe(0, &profile, &error) == VYRE_ERR_NO_DEVICE);
    REQUIRE(error != nullptr);
    CHECK(std::string(error->message).find("Fix:") != std::string::npos);
    fake().fns().error_release(error);
  }
  ScopedEnv devices("FAKE_CUDA_DEVICES", "2");
  vyre_device_profile profile{};
  profile.struct_size = sizeof profile;
  vyre_error* error = nullptr;
  CHECK(group->device_describe(2, &profile, &error) == VYRE_ERR_NO_DEVICE);
  fake().fns().error_release(error);
  CHECK(group->device_describe(-1, &profile, &error) == VYRE_ERR_INVALID_ARGUMENT);
  fake().fns().error_release(error);
  CHECK(group->device_describe(0, nullptr, &error) == VYRE_ERR_INVALID_ARGUMENT);
  fake().fns().error_release(error);
  CHECK(group->device_count(nullptr, &error) == VYRE_ERR_INVALID_ARGUMENT);
  fake().fns().error_release(error);
  // A 1.0-sized profile gets only its bytes.
  vyre_device_profile small{};
  small.struct_size = VYRE_DEVICE_PROFILE_V1_0_SIZE;
  small.external_alignment = 12345;
  CHECK(group->device_describe(1, &small, nullptr) == VYRE_OK);
  CHECK(std::string(small.name) == "Fake CUDA Device 1");
  CHECK(small.external_alignment == 12345);
}

TEST_CASE("create honours the device ordinal and fails with NO_DEVICE and a Fix where it cannot run") {
  FakeScope scope(Kernel::None);
  {
    ScopedEnv devices("FAKE_CUDA_DEVICES", "2");
    ScopedEnv ordinal("VYRE_CUDA_DEVICE_ORDINAL", "1");
    const vyre_device_profile second = open_backend("cuda").device_profile();
    CHECK(std::string(second.name) == "Fake CUDA Device 1");  // the instance runs on ordinal 1
    CHECK(second.multiprocessors == 132);
    vyre::CreateOptions options;
    options.device_ordinal = 2;
    CHECK(expect_error([&] { open_backend("cuda", options); }, VYRE_ERR_NO_DEVICE).find("2 device(s)") != std::string::npos);
  }
  {
    ScopedEnv devices("FAKE_CUDA_DEVICES", "0");
    expect_error([] { open_backend("cuda"); }, VYRE_ERR_NO_DEVICE);
  }
  // A copy of the fake under another name is a separate driver library (opened afresh).
  const std::string copy = std::string(VYRE_BINARY_DIR) + "/fake_cuda_copy.so";
  std::filesystem::copy_file(FAKE_CUDA_LIBRARY, copy, std::filesystem::copy_options::overwrite_existing);
  ScopedEnv library("VYRE_CUDA_DRIVER_LIBRARY", copy.c_str());
  {
    ScopedEnv old("FAKE_CUDA_DRIVER_VERSION", "11080");
    CHECK(expect_error([] { open_backend("cuda"); }, VYRE_ERR_NO_DEVICE).find("CUDA 11.8") != std::string::npos);
  }
  {
    ScopedEnv hidden("FAKE_CUDA_HIDE_cuGraphExecKernelNodeSetParams", "1");
    CHECK(expect_error([] { open_backend("cuda"); }, VYRE_ERR_NO_DEVICE).find("cuGraphExecKernelNodeSetParams") !=
          std::string::npos);
  }
}

TEST_CASE("host dispatch: sync, async, timed and pipeline agree; telemetry counts the work") {
  FakeScope scope(Kernel::Affine);
  const std::uint32_t n = 4096;
  const Program program = affine_program(n);
  const auto compiled = fake().compile(program);
  const auto a = random_words(3000, 1, kWordBound);
  const std::vector<vyre::host::Bytes> inputs{bytes(a)};
  const auto expected = affine_model(a, n);

  Delta delta(fake());
  CHECK(words(fake().dispatch(compiled, inputs).at(0)) == expected);
  CHECK(delta("dispatches") == 1);
  CHECK(delta("kernel_launches") == 1);
  // One image (host_run.hpp): the input at 0 and the zeroed output at 12032 (256-aligned); the
  // output must arrive zeroed, since the fake's memory starts as 0x5A.
  CHECK(delta("h2d_operations") == 1);
  CHECK(delta("h2d_bytes") == 12032 + n * 4);
  CHECK(delta("memset_operations") == 0);
  CHECK(delta("d2h_operations") == 1);
  CHECK(delta("d2h_bytes") == n * 4);

  auto pending = fake().dispatch_async(compiled, inputs);
  int polls = 0;
  while (!pending.poll()) ++polls;
  CHECK(polls >= 1);  // the fake reports "not ready" before finishing
  CHECK(words(pending.wait().at(0)) == expected);

  const auto timed = fake().dispatch_timed(compiled, inputs);
  CHECK(words(timed.outputs.at(0)) == expected);
  CHECK(timed.timing.has_device_ns);
  CHECK(timed.timing.device_ns == 250000);
  CHECK(timed.timing.wall_ns >= timed.timing.enqueue_ns);
  CHECK(metric(fake(), "timed_device_ns") >= 250000);

  // One pipeline dispatch of `count` seeded input words, checked against the model.
  auto check_pipeline = [&](const vyre::host::Pipeline& pipeline, std::size_t count, std::uint32_t seed) {
    const auto input = random_words(count, seed, kWordBound);
    CHECK(words(pipeline.dispatch(std::vector<vyre::host::Bytes>{bytes(input)}).at(0)) == affine_model(input, n));
  };

  // An image-staged pipeline dispatches as a plain dispatch does (pipeline_shape.hpp).
  const auto pipeline = fake().pipeline(compiled);
  Delta plain(fake());
  for (int k = 0; k < 4; ++k) check_pipeline(pipeline, k % 2 == 0 ? 1000 : 2500, 30 + k);
  CHECK(plain("graph_builds") == 0);
  CHECK(plain("h2d_operations") == 4);
  CHECK(FakeScope::stats().captures == 0);

  // VYRE_CUDA_PIPELINE_CAPTURE=1 (read when a shape is built): one captured graph per input shape.
  ScopedEnv capture("VYRE_CUDA_PIPELINE_CAPTURE", "1");
  const auto captured = fake().pipeline(compiled);
  Delta graphs(fake());
  for (int k = 0; k < 6; ++k) check_pipeline(captured, k % 2 == 0 ? 1000 : 2500, 10 + k);
  CHECK(graphs("graph_builds") == 2);  // one captured graph per input shape
  CHECK(graphs("graph_launches") == 6);
  CHECK(FakeScope::stats().captures == 2);

  // VYRE_CUDA_DISABLE_GRAPHS=1 (read when a shape is built): the same work queued directly.
  ScopedEnv direct("VYRE_CUDA_DISABLE_GRAPHS", "1");
  const auto direct_pipeline = fake().pipeline(compiled);
  Delta none(fake());
  for (int k = 0; k < 3; ++k) check_pipeline(direct_pipeline, 2000, 20 + k);
  CHECK(none("graph_builds") == 0);
  CHECK(none("graph_launches") == 0);
  CHECK(none("h2d_operations") == 3);
}

TEST_CASE("a large host dispatch holds its data once: chunks through a small pinned ring, exact results") {
  FakeScope scope(Kernel::Affine);
  // 40 MB in and 40 MB out: past the image staging (1 MiB), so each moves in 16 MiB chunks
  // (host_run.hpp, transfer_ring.hpp) through two pinned slots, whatever the dispatch's size (the
  // allocating calls discard outputs on failure, so theirs come straight down the ring too).
  const std::uint32_t n = 10'000'000;
  const auto compiled = fake().compile(affine_program(n));
  const auto a = random_words(n, 7, kWordBound);
  const std::vector<vyre::host::Bytes> inputs{bytes(a)};
  const auto expected = affine_model(a, n);
  constexpr std::uint64_t kRingBytes = 2 * (16ull << 20);

  fake_cuda_reset_counters();
  const std::uint64_t pinned_before = FakeScope::stats().live_host_bytes;
  Delta delta(fake());
  CHECK(words(fake().dispatch(compiled, inputs).at(0)) == expected);
  CHECK(delta("h2d_operations") == 3);  // ceil(40 MB / 16 MiB) chunks each way
  CHECK(delta("h2d_bytes") == std::uint64_t{n} * 4);
  CHECK(delta("d2h_operations") == 3);
  CHECK(delta("d2h_bytes") == std::uint64_t{n} * 4);
  CHECK(delta("memset_operations") == 1);
  // The old staging pinned a copy of the input and the output (80 MB); now only the ring.
  CHECK(FakeScope::stats().peak_host_bytes - pinned_before <= kRingBytes);

  // Async and timed take the same path: the outputs arrive only through wait().
  auto pending = fake().dispatch_async(compiled, inputs);
  CHECK(words(pending.wait().at(0)) == expected);
  const auto timed = fake().dispatch_timed(compiled, inputs);
  CHECK(words(timed.outputs.at(0)) == expected);
  CHECK(timed.timing.has_device_ns);

  // dispatch_into (the caller's memory, no byte written unless it succeeds): the output is staged
  // whole in pinned memory and copied out on success; the input still goes through the ring.
  ByteVector out(std::uint64_t{n} * 4 + 64, std::byte{0xAB});
  std::vector<vyre::host::MutableBytes> targets{vyre::host::MutableBytes(out.data(), std::uint64_t{n} * 4)};
  fake_cuda_reset_counters();
  Delta into(fake());
  fake().dispatch_into(compiled, inputs, targets, DispatchConfig{});
  CHECK(std::memcmp(out.data(), expected.data(), std::uint64_t{n} * 4) == 0);
  CHECK(std::all_of(out.end() - 64, out.end(), [](std::byte b) { return b == std::byte{0xAB}; }));
  CHECK(into("h2d_operations") == 3);
  CHECK(into("d2h_operations") == 1);
  CHECK(FakeScope::stats().peak_host_bytes - pinned_before <= kRingBytes + 64ull * 1024 * 1024);
}

TEST_CASE("module and PTX caches: one lowering per process, one module load per instance") {
  FakeScope scope(Kernel::None);
  const Program program = increment_program(321);
  Delta delta(fake());
  fake().compile(program);
  fake().compile(program);
  CHECK(delta("module_cache_misses") == 1);
  CHECK(delta("module_cache_hits") == 1);
  CHECK(delta("ptx_cache_misses") == 1);
  const auto other = open_backend("cuda");
  Delta second(other);
  other.compile(program);
  CHECK(second("ptx_cache_hits") == 1);
  CHECK(second("module_cache_misses") == 1);
}

TEST_CASE("a workgroup_override dispatch runs a module specialised to that size, loaded once") {
  // Modules are specialised to one launch workgroup size (the optimizer's local_id bounds) and their
  // entries declare it with .reqntid, which the fake enforces as a real driver does.
  FakeScope scope(Kernel::Affine);
  const std::uint32_t n = 4096;
  const Program program = affine_program(n);  // declared workgroup 64
  const auto compiled = fake().compile(program);
  const auto a = random_words(3000, 4, kWordBound);
  const std::vector<vyre::host::Bytes> inputs{bytes(a)};
  const auto expected = affine_model(a, n);
  DispatchConfig wide;
  wide.workgroup_override = std::array<std::uint32_t, 3>{256, 1, 1};
  Delta delta(fake());
  CHECK(words(fake().dispatch(compiled, inputs, wide).at(0)) == expected);
  CHECK(delta("module_cache_misses") == 1);  // the 256-wide variant
  CHECK(words(fake().dispatch(compiled, inputs, wide).at(0)) == expected);
  CHECK(words(fake().dispatch(compiled, inputs).at(0)) == expected);  // declared size: compile()'s module
  CHECK(delta("module_cache_misses") == 1);
  CHECK(delta("kernel_launches") == 3);
  CHECK(FakeScope::stats().violations == 0);  // every launch's block matched its entry's .reqntid
}

TEST_CASE("a dispatch with N past a covering buffer, or an explicit grid, runs a module without its proofs") {
  // compile() lowers affine_program assuming `out` (declared with n elements) covers every
  // dispatch: its store at InvocationId.x is unchecked, and its launches must pass the tail guard
  // and N <= n, which KernelArgs enforces (a violation would fail the dispatch).
  FakeScope scope(Kernel::Affine);
  const std::uint32_t n = 4096;
  const auto compiled = fake().compile(affine_program(n));
  const auto a = random_words(n, 5, kWordBound);
  const std::vector<vyre::host::Bytes> inputs{bytes(a)};
  const auto expected = affine_model(a, n);
  Delta delta(fake());
  CHECK(words(fake().dispatch(compiled, inputs).at(0)) == expected);
  CHECK(delta("module_cache_misses") == 0);
  DispatchConfig past;
  past.dispatch_elements = n + 640;  // invocations n.. store past `out`: dropped
  CHECK(words(fake().dispatch(compiled, inputs, past).at(0)) == expected);
  CHECK(delta("module_cache_misses") == 1);
  DispatchConfig grid;
  grid.grid = std::array<std::uint32_t, 3>{n / 64 + 2, 1, 1};  // no tail guard: the same variant
  CHECK(words(fake().dispatch(compiled, inputs, grid).at(0)) == expected);
  CHECK(words(fake().dispatch(compiled, inputs).at(0)) == expected);
  CHECK(delta("module_cache_misses") == 1);
  CHECK(delta("kernel_launches") == 4);
  CHECK(FakeScope::stats().violations == 0);
}

TEST_CASE("grid_sync: cooperative with fresh barrier state when co-resident, phases otherwise") {
  DispatchConfig fixpoint;
  fixpoint.fixpoint_iterations = 3;
  auto run = [](const vyre::host::Backend& backend, std::uint32_t n, const DispatchConfig& config, int rounds) {
    FakeScope scope(Kernel::Rotate, n);
    const auto x = random_words(n, n, kWordBound);
    const auto out = backend.dispatch(backend.compile(rotate_program(n)), std::vector<vyre::host::Bytes>{bytes(x)}, config);
    CHECK(words(out.at(0)) == rotate_model(x, rounds));
    return FakeScope::stats();
  };
  {
    Delta delta(fake());
    const auto s = run(fake(), 4096, {}, 1);  // 16 workgroups of 256: co-resident
    CHECK(s.cooperative_launches == 1);
    CHECK(delta("cooperative_launches") == 1);
    const auto s3 = run(fake(), 4096, fixpoint, 3);
    CHECK(s3.cooperative_launches == 3);  // a zeroed barrier before each launch
  }
  {
    Delta delta(fake());
    const auto s = run(fake(), 1u << 20, {}, 1);  // 4096 workgroups > 132 SMs x 8
    CHECK(s.cooperative_launches == 0);
    CHECK(s.kernel_launches == 2);
    CHECK(delta("split_grid_sync_dispatches") == 1);
  }
  {
    ScopedEnv force("VYRE_CUDA_FORCE_SPLIT_GRID_SYNC", "1");
    const auto forced = open_backend("cuda");
    const auto s = run(forced, 4096, fixpoint, 3);
    CHECK(s.cooperative_launches == 0);
    CHECK(s.kernel_launches == 6);
    FakeScope scope(Kernel::Rotate, 4096);
    ScopedEnv capture("VYRE_CUDA_PIPELINE_CAPTURE", "1");  // split phases replay from a captured graph
    const auto x = random_words(4096, 3, kWordBound);
    const auto pipeline = forced.pipeline(forced.compile(rotate_program(4096)));
    for (int k = 0; k < 3; ++k) CHECK(words(pipeline.dispatch(std::vector<vyre::host::Bytes>{bytes(x)}).at(0)) == rotate_model(x, 1));
    CHECK(FakeScope::stats().captures == 1);
    CHECK(FakeScope::stats().graph_launches == 3);
  }
  {
    FakeScope scope(Kernel::Rotate, 4096);  // a cooperative pipeline launches directly, never from a graph
    const auto x = random_words(4096, 4, kWordBound);
    const auto pipeline = fake().pipeline(fake().compile(rotate_program(4096)));
    for (int k = 0; k < 2; ++k) CHECK(words(pipeline.dispatch(std::vector<vyre::host::Bytes>{bytes(x)}).at(0)) == rotate_model(x, 1));
    CHECK(FakeScope::stats().captures == 0);
    CHECK(FakeScope::stats().cooperative_launches == 2);
  }
}

TEST_CASE("device limits fail before any device work and write no output") {
  FakeScope scope(Kernel::Affine);
  const Program program = affine_program(1024);
  const auto compiled = fake().compile(program);
  const auto a = random_words(1024, 5, kWordBound);
  ByteVector out(4096, std::byte{0xAB});
  std::vector<vyre::host::MutableBytes> targets{vyre::host::MutableBytes(out.data(), out.size())};
  DispatchConfig deep;
  deep.grid = std::array<std::uint32_t, 3>{1, 1, 1};
  deep.workgroup_override = std::array<std::uint32_t, 3>{1, 1, 128};
  DispatchConfig tall;
  tall.grid = std::array<std::uint32_t, 3>{1, 70000, 1};
  for (const DispatchConfig& config : {deep, tall}) {
    Delta delta(fake());
    expect_error([&] { fake().dispatch_into(compiled, std::vector<vyre::host::Bytes>{bytes(a)}, targets, config); },
                 VYRE_ERR_LIMIT);
    CHECK(delta("kernel_launches") == 0);
    CHECK(delta("h2d_operations") == 0);
    CHECK(std::all_of(out.begin(), out.end(), [](std::byte b) { return b == std::byte{0xAB}; }));
  }
  CHECK(FakeScope::stats().kernel_launches == 0);
}

TEST_CASE("a time limit stops submitting iterations: VYRE_ERR_TIMEOUT, no output, the instance usable") {
  FakeScope scope(Kernel::Affine);
  const std::uint32_t n = 1024;
  const auto compiled = fake().compile(affine_program(n));
  const auto a = random_words(n, 9, kWordBound);
  const std::vector<vyre::host::Bytes> inputs{bytes(a)};
  ByteVector out(n * 4, std::byte{0xAB});
  std::vector<vyre::host::MutableBytes> targets{vyre::host::MutableBytes(out.data(), out.size())};
  DispatchConfig forever;
  forever.fixpoint_iterations = 0xFFFFFFFFu;  // hours of launches without a limit
  forever.time_limit_ns = 100'000'000;
  Delta delta(fake());
  const auto start = std::chrono::steady_clock::now();
  expect_error([&] { fake().dispatch_into(compiled, inputs, targets, forever); }, VYRE_ERR_TIMEOUT);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));  // generous for CI
  CHECK(delta("kernel_launches") > 0);  // it did start, and stopped submitting
  CHECK(std::all_of(out.begin(), out.end(), [](std::byte b) { return b == std::byte{0xAB}; }));
  CHECK(words(fake().dispatch(compiled, inputs).at(0)) == affine_model(a, n));
  // Resident dispatches stop the same way; pipelines and sequences replay graphs and refuse a limit.
  auto in = fake().alloc(n * 4);
  auto result = fake().alloc(n * 4);
  std::vector<vyre::host::Binding> bindings(2);
  bindings[0].resident = in;
  bindings[1].resident = result;
  expect_error([&] { fake().dispatch_resident(compiled, bindings, forever); }, VYRE_ERR_TIMEOUT);
  DispatchConfig limited;
  limited.time_limit_ns = 1'000'000'000;
  expect_error([&] { fake().pipeline(compiled, limited); }, VYRE_ERR_UNSUPPORTED);
}

TEST_CASE("resident round trip: zero at allocation, writes at offsets, merged range reads") {
  FakeScope scope(Kernel::None);
  check_resident_round_trip(fake());
}

TEST_CASE("resident dispatch: ordered after uploads, no readback, busy while in flight") {
  FakeScope scope(Kernel::Mix);
  const std::uint32_t n = 2048;
  const auto mix = fake().compile(mix_program(n));
  const auto x0 = random_words(n, 10, kWordBound), y0 = random_words(n, 11, kWordBound);
  const auto expected = mix_model(x0, y0);
  const ResidentBuffer x = fake().alloc(n * 4), y = fake().alloc(n * 4);
  fake().upload(x, 0, bytes(x0));
  fake().upload(y, 0, bytes(y0));
  const std::vector<Binding> bindings{Binding::of(x), Binding::of(y)};
  Delta delta(fake());
  fake().dispatch_resident(mix, bindings);
  CHECK(delta("d2h_operations") == 0);
  CHECK(words(fake().download(x, 0, n * 4)) == expected);

  fake().upload(x, 0, bytes(x0));
  auto pending = fake().dispatch_resident_async(mix, std::vector<Binding>{Binding::of(x), Binding::host_bytes(bytes(y0))});
  ResidentBuffer busy = x;
  expect_error([&] { busy.free(); }, VYRE_ERR_BUSY);
  pending.wait();
  CHECK(words(fake().download(x, 0, n * 4)) == expected);

  fake().upload(x, 0, bytes(x0));
  const auto timing = fake().dispatch_resident_timed(mix, bindings);
  CHECK(timing.has_device_ns);
  CHECK(words(fake().download(x, 0, n * 4)) == expected);
  busy.free();
  CHECK(busy.freed());
}

TEST_CASE("resident dispatches in flight hold no stream; a chain of them stays in order") {
  FakeScope scope(Kernel::Increment);
  const std::uint32_t n = 1030;  // a partial last group of 4 invocations
  const auto increment = fake().compile(increment_program(n));
  const ResidentBuffer x = fake().alloc(n * 4);
  const auto x0 = random_words(n, 12, kWordBound);
  fake().upload(x, 0, bytes(x0));
  const std::vector<Binding> bindings{Binding::of(x)};
  fake().dispatch_resident(increment, bindings);  // the stream pool is primed from here on
  fake_cuda_reset_counters();
  const std::uint64_t streams_before = FakeScope::stats().live_streams;
  std::vector<vyre::host::PendingDispatch> pending;
  for (int k = 0; k < 300; ++k) pending.push_back(fake().dispatch_resident_async(increment, bindings));
  // Each dispatch gives its stream back once queued (the fake runs nothing before a wait).
  CHECK(FakeScope::stats().live_streams <= streams_before + 1);
  CHECK(FakeScope::stats().kernel_launches == 0);
  for (auto& p : pending) p.wait();
  auto expected = x0;
  for (auto& v : expected) v += 301;
  CHECK(words(fake().download(x, 0, n * 4)) == expected);
}

TEST_CASE("a sequence equals step-by-step dispatch; repeated steps replay one graph") {
  FakeScope scope(Kernel::Mix);
  const std::uint32_t n = 3000;
  const auto mix = fake().compile(mix_program(n));
  const auto x0 = random_words(n, 20, kWordBound), y0 = random_words(n, 21, kWordBound);
  auto fresh = [&] {
    const ResidentBuffer x = fake().alloc(n * 4), y = fake().alloc(n * 4);
    fake().upload(x, 0, bytes(x0));
    fake().upload(y, 0, bytes(y0));
    return std::pair{x, y};
  };
  const auto [sx, sy] = fresh();
  Delta repeats(fake());
  for (int r = 0; r < 10; ++r) fake().dispatch_resident(mix, std::vector<Binding>{Binding::of(sx), Binding::of(sy)});
  const auto step_x = words(fake().download(sx, 0, n * 4));
  // The same launch 10 times: direct, then a one-node graph built on the repeat and replayed.
  CHECK(repeats("repeat_graph_builds") == 1);
  CHECK(repeats("repeat_graph_launches") == 9);
  CHECK(repeats("kernel_launches") == 10);
  CHECK(FakeScope::stats().graph_launches == 9);

  const auto [qx, qy] = fresh();
  std::vector<std::uint32_t> out_x(n), out_y(n / 2);
  vyre::host::Sequence sequence;
  sequence.prefix = {{mix, {}, {qx, qy}}};
  sequence.repeated = {{mix, {}, {qx, qy}}};
  sequence.repeat_count = 9;
  sequence.reads = {{qx, 0, mutable_bytes(out_x)}, {qy, n * 2, mutable_bytes(out_y)}};
  Delta delta(fake());
  fake().sequence(sequence);
  CHECK(out_x == step_x);
  CHECK(out_y == std::vector<std::uint32_t>(y0.begin() + n / 2, y0.end()));
  CHECK(delta("graph_launches") == 9);
  CHECK(delta("d2h_operations") == 2);
  CHECK(FakeScope::stats().graph_launches == 9 + 9);
}

TEST_CASE("a repeated sequence of 1000 steps is correct") {
  FakeScope scope(Kernel::Increment);
  const std::uint32_t n = 4096;
  const auto increment = fake().compile(increment_program(n));
  const auto x0 = random_words(n, 30, kWordBound);
  const ResidentBuffer x = fake().alloc(n * 4);
  fake().upload(x, 0, bytes(x0));
  std::vector<std::uint32_t> out(n);
  vyre::host::Sequence sequence;
  sequence.repeated = {{increment, {}, {x}}};
  sequence.repeat_count = 1000;
  sequence.reads = {{x, 0, mutable_bytes(out)}};
  fake().sequence(sequence);
  auto expected = x0;
  for (auto& w : expected) w += 1000;
  CHECK(out == expected);
  sequence.repeated = {{increment, {}, {x}}, {increment, {}, {x}}};
  sequence.repeat_count = 500;
  fake().sequence(sequence);
  for (auto& w : expected) w += 1000;
  CHECK(out == expected);
  CHECK(FakeScope::stats().kernel_launches == 2000);
}

TEST_CASE("graph replay stays correct after a binding or count change, updating in place") {
  FakeScope scope(Kernel::Mix);
  const std::uint32_t n = 2048;
  const auto mix = fake().compile(mix_program(n));
  auto run = [&](const ResidentBuffer& x, const ResidentBuffer& y, const DispatchConfig& config) {
    std::vector<std::uint32_t> out(n);
    vyre::host::Sequence sequence;
    sequence.repeated = {{mix, config, {x, y}}};
    sequence.repeat_count = 5;
    sequence.reads = {{x, 0, mutable_bytes(out)}};
    fake().sequence(sequence);
    return out;
  };
  auto model = [](const std::vector<std::uint32_t>& x, const std::vector<std::uint32_t>& y, std::uint32_t elements) {
    return mix_model(x, y, 5, elements);  // the sequence's 5 repeats
  };
  const auto ax = random_words(n, 40, kWordBound), ay = random_words(n, 41, kWordBound);
  const auto bx = random_words(n, 42, kWordBound), by = random_words(n, 43, kWordBound);
  const ResidentBuffer x1 = fake().alloc(n * 4), y1 = fake().alloc(n * 4), x2 = fake().alloc(n * 4),
                       y2 = fake().alloc(n * 4);
  fake().upload(x1, 0, bytes(ax));
  fake().upload(y1, 0, bytes(ay));
  fake().upload(x2, 0, bytes(bx));
  fake().upload(y2, 0, bytes(by));
  CHECK(run(x1, y1, {}) == model(ax, ay, n));
  Delta delta(fake());
  CHECK(run(x2, y2, {}) == model(bx, by, n));
  CHECK(delta("graph_builds") == 0);
  CHECK(delta("graph_updates") == 1);
  CHECK(words(fake().download(x1, 0, n * 4)) == model(ax, ay, n));
  DispatchConfig half;
  half.dispatch_elements = 1024;
  const auto before = words(fake().download(x2, 0, n * 4));
  Delta counts(fake());
  CHECK(run(x2, y2, half) == model(before, by, 1024));
  CHECK(counts("graph_builds") == 0);
  CHECK(counts("graph_updates") == 1);
  ScopedEnv direct("VYRE_CUDA_DISABLE_GRAPHS", "1");
  const auto again = words(fake().download(x2, 0, n * 4));
  Delta none(fake());
  CHECK(run(x2, y2, {}) == model(again, by, n));
  CHECK(none("graph_launches") == 0);
  CHECK(none("kernel_launches") == 5);
}

TEST_CASE("the memory budget: OUT_OF_MEMORY naming the bytes, earlier and later buffers keep working") {
  FakeScope scope(Kernel::None);
  vyre::CreateOptions options;
  options.memory_budget_bytes = 64ull << 20;
  const auto backend = open_backend("cuda", options);
  const ResidentBuffer first = backend.alloc(32ull << 20);
  const std::string message = expect_error([&] { backend.alloc(48ull << 20); }, VYRE_ERR_OUT_OF_MEMORY);
  CHECK(message.find("50331648") != std::string::npos);
  CHECK(message.find("33554432") != std::string::npos);
  const ResidentBuffer second = backend.alloc(16ull << 20);
  const auto data = random_words(1024, 50, kWordBound);
  backend.upload(first, (32ull << 20) - 4096, bytes(data));
  CHECK(words(backend.download(first, (32ull << 20) - 4096, 4096)) == data);
  backend.upload(second, 0, bytes(data));
  CHECK(words(backend.download(second, 0, 4096)) == data);
  // Without a budget the device's free memory is the limit (the fake has 1 GiB).
  const std::string device = expect_error([] { fake().alloc(2ull << 30); }, VYRE_ERR_OUT_OF_MEMORY);
  CHECK(device.find("2147483648") != std::string::npos);
  CHECK(fake().alloc(1 << 20).byte_len() == (1u << 20));
}

TEST_CASE("device memory stays flat over 10k allocate/dispatch/free cycles") {
  FakeScope scope(Kernel::Increment);
  const std::uint32_t n = 256;
  const auto increment = fake().compile(increment_program(n));
  const auto data = random_words(n, 60, kWordBound);
  auto cycle = [&](std::uint64_t k) {
    ResidentBuffer buffer = fake().alloc(n * 4);
    ResidentBuffer scratch = fake().alloc(64 + (k % 3) * 4096);  // varying sizes
    fake().upload(buffer, 0, bytes(data));
    if (k % 2 == 0) {
      fake().dispatch_resident(increment, std::vector<Binding>{Binding::of(buffer)});
    } else {
      fake().dispatch_resident_async(increment, std::vector<Binding>{Binding::of(buffer)}).wait();
    }
    if (k % 97 == 0) {
      auto expected = data;
      for (auto& w : expected) w += 1;
      CHECK(words(fake().download(buffer, 0, n * 4)) == expected);
    }
    buffer.free();
    scratch.free();
  };
  for (std::uint64_t k = 0; k < 100; ++k) cycle(k);
  const fake_cuda_stats before = FakeScope::stats();
  const std::uint64_t pool_before = metric(fake(), "device_bytes_allocated");
  for (std::uint64_t k = 0; k < 10000; ++k) cycle(k);
  const fake_cuda_stats after = FakeScope::stats();
  CHECK(after.live_device_bytes == before.live_device_bytes);
  CHECK(after.live_device_allocations == before.live_device_allocations);
  CHECK(after.live_host_allocations <= before.live_host_allocations + 4);
  CHECK(after.live_events <= before.live_events + 8);
  CHECK(after.live_streams <= before.live_streams + 8);
  CHECK(metric(fake(), "device_bytes_allocated") == pool_before);
  CHECK(metric(fake(), "resident_bytes_live") == 0);
}

TEST_CASE("8 threads share one instance: host dispatch, resident work and sequences") {
  FakeScope scope(Kernel::Mix);
  const std::uint32_t n = 1024;
  const auto mix = fake().compile(mix_program(n));
  const auto shared_y = random_words(n, 70, kWordBound);
  const ResidentBuffer y = fake().alloc(n * 4);
  fake().upload(y, 0, bytes(shared_y));
  const auto failures = run_threads(8, [&](int t, Failures&) {
    const ResidentBuffer x = fake().alloc(n * 4);
    for (int iteration = 0; iteration < 25; ++iteration) {
      auto model = random_words(n, 1000 * t + iteration, kWordBound);
      fake().upload(x, 0, bytes(model));
      fake().dispatch_resident(mix, std::vector<Binding>{Binding::of(x), Binding::of(y)});
      model = mix_model(std::move(model), shared_y);
      if (iteration % 3 == 0) {
        std::vector<std::uint32_t> out(n);
        vyre::host::Sequence sequence;
        sequence.repeated = {{mix, {}, {x, y}}};
        sequence.repeat_count = 2;
        sequence.reads = {{x, 0, mutable_bytes(out)}};
        fake().sequence(sequence);
        model = mix_model(std::move(model), shared_y, 2);
        if (out != model) throw std::runtime_error("sequence result differs");
      }
      if (words(fake().download(x, 0, n * 4)) != model) throw std::runtime_error("resident result differs");
      const auto host = fake().dispatch(mix, std::vector<vyre::host::Bytes>{bytes(model), bytes(shared_y)});
      if (words(host.at(0)) != mix_model(model, shared_y)) {
        throw std::runtime_error("host dispatch result differs");
      }
    }
  });
  CHECK(failures.empty());
}

TEST_CASE("handles of another instance are rejected") {
  FakeScope scope(Kernel::None);
  const auto other = open_backend("cuda");
  const ResidentBuffer foreign = other.alloc(64);
  const auto compiled = fake().compile(increment_program(16));
  expect_error([&] { fake().dispatch_resident(compiled, std::vector<Binding>{Binding::of(foreign)}); },
               VYRE_ERR_INVALID_HANDLE);
}

TEST_CASE("destroying an instance releases everything it owns on the device") {
  FakeScope scope(Kernel::Increment);
  const fake_cuda_stats before = FakeScope::stats();
  {
    const auto backend = open_backend("cuda");
    const auto increment = backend.compile(increment_program(512));
    const ResidentBuffer x = backend.alloc(2048);
    backend.upload(x, 0, bytes(random_words(512, 1, kWordBound)));
    backend.dispatch_resident(increment, std::vector<Binding>{Binding::of(x)});
    auto pending = backend.dispatch_resident_async(increment, std::vector<Binding>{Binding::of(x)});
    const auto pipeline = backend.pipeline(increment);
    pipeline.dispatch(std::vector<vyre::host::Bytes>{bytes(random_words(512, 2, kWordBound))});
    vyre::host::Sequence sequence;
    sequence.repeated = {{increment, {}, {x}}};
    sequence.repeat_count = 3;
    backend.sequence(sequence);
  }
  CHECK(live_difference(before, FakeScope::stats()) == "");  // the text names what leaked
}
