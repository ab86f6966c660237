// Host dispatch on the GPU: the examples on both backends, sync/async/timed/pipeline agreement,
// grid_sync programs both cooperative and split, 8 threads on one instance, device-limit errors
// before any device work, graph replay of compiled pipelines (no slower than plain dispatch),
// caches and telemetry, workgroup memory under workgroup_override (one module per size), f32 sin and
// cos of one value sharing their reduction.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <random>
#include <thread>

#include "gpu_support.hpp"
#include "test_programs.hpp"
#include "vyre/builder.hpp"
#include "vyre/json.hpp"

namespace {

using namespace vyre::cudatest;  // test file: helpers of this suite (and its names: gpu_support.hpp)

const bool kGpu = require_gpu();

std::vector<ByteVector> expected_outputs(const Program& program, const std::vector<ByteVector>& inputs,
                                         const DispatchConfig& config = {}) {
  return reference().dispatch(reference().compile(program), views(inputs), config);
}

}  // namespace

TEST_CASE("the device profile describes the GPU") {
  const vyre_device_profile profile = cuda().device_profile();
  std::cout << "device: " << profile.name << " (" << profile.target << "), " << profile.multiprocessors
            << " SMs, " << profile.total_memory_bytes / (1 << 20) << " MiB, " << profile.memory_bandwidth_gbps
            << " GB/s, driver " << profile.driver_version << ", cooperative " << profile.cooperative_launch
            << std::endl;
  CHECK(profile.kind == VYRE_DEVICE_KIND_GPU);
  CHECK(std::strlen(profile.name) > 0);
  CHECK(std::string(profile.target).starts_with("sm_"));
  CHECK(profile.compute_major >= 7);
  CHECK(profile.multiprocessors > 0);
  CHECK(profile.subgroup_width == 32);
  CHECK(profile.max_threads_per_workgroup >= 1024);
  CHECK(profile.max_grid_size[0] >= 65535);
  CHECK(profile.total_memory_bytes > (1ull << 30));
  CHECK(profile.memory_bandwidth_gbps > 0);
  CHECK(profile.l2_cache_bytes > 0);
}

TEST_CASE("every example agrees with reference_cpu") {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(example_path(""))) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  REQUIRE(!files.empty());
  for (const auto& file : files) {
    SUBCASE(file.filename().string().c_str()) {
      const Program program = vyre::load_program_file(file);
      const auto inputs = random_inputs(program, 1024, 42);
      try {
        const auto expected = expected_outputs(program, inputs);
        const auto actual = cuda().dispatch(cuda().compile(program), views(inputs));
        CHECK(same_outputs("example " + file.filename().string(), program, inputs, expected, actual));
      } catch (const vyre::Error& error) {
        FAIL("example " << file.filename().string() << ": " << error.what());
      }
    }
  }
}

TEST_CASE("sync, async, async-into, timed and pipeline dispatch agree with the reference") {
  std::vector<Program> programs{affine_program(4096), vyre::load_program_file(example_path("saxpy.json")),
                                vyre::load_program_file(example_path("histogram.json"))};
  for (std::size_t p = 0; p < programs.size(); ++p) {
    CAPTURE(p);
    const Program& program = programs[p];
    const auto inputs = random_inputs(program, 3000, 7 + p);
    const auto expected = expected_outputs(program, inputs);
    const auto compiled = cuda().compile(program);

    CHECK(same_outputs("sync", program, inputs, expected, cuda().dispatch(compiled, views(inputs))));

    auto pending = cuda().dispatch_async(compiled, views(inputs));
    while (!pending.poll()) std::this_thread::yield();
    CHECK(same_outputs("async", program, inputs, expected, pending.wait()));

    std::vector<ByteVector> into(expected.size());
    std::vector<vyre::host::MutableBytes> targets;
    for (std::size_t j = 0; j < expected.size(); ++j) {
      into[j].assign(expected[j].size(), std::byte{0xAB});
      targets.emplace_back(into[j].data(), into[j].size());
    }
    auto pending_into = cuda().dispatch_async_into(compiled, views(inputs), targets);
    CHECK(pending_into.wait_for(UINT64_MAX));
    CHECK(same_outputs("async into", program, inputs, expected, into));

    Delta delta(cuda());
    const auto timed = cuda().dispatch_timed(compiled, views(inputs));
    CHECK(same_outputs("timed", program, inputs, expected, timed.outputs));
    CHECK(timed.timing.has_device_ns);
    CHECK(timed.timing.device_ns > 0);
    CHECK(timed.timing.enqueue_ns > 0);
    CHECK(timed.timing.wall_ns >= timed.timing.enqueue_ns);
    CHECK(timed.timing.wall_ns >= timed.timing.wait_ns);
    CHECK(delta("timed_dispatches") == 1);
    CHECK(delta("timed_device_ns") == timed.timing.device_ns);

    const auto pipeline = cuda().pipeline(compiled);
    for (int k = 0; k < 3; ++k) {
      CHECK(same_outputs("pipeline", program, inputs, expected, pipeline.dispatch(views(inputs))));
    }
  }
}

TEST_CASE("a large host dispatch (40 MB each way) comes through the transfer ring exact, every mode") {
  // Past the image staging: inputs and (allocating calls) outputs move in 16 MiB chunks through a
  // two-slot pinned ring (plugins/cuda/src/runtime/host_run.hpp); dispatch_into stages its output.
  const std::uint32_t n = 10'000'000;
  const auto compiled = cuda().compile(affine_program(n));
  const auto a = random_words(n, 21);
  const std::vector<vyre::host::Bytes> inputs{bytes(a)};
  const auto expected = affine_model(a, n);
  Delta delta(cuda());
  CHECK(same_words("sync", expected, words(cuda().dispatch(compiled, inputs).at(0))));
  CHECK(delta("h2d_operations") == 3);
  CHECK(delta("d2h_operations") == 3);
  auto pending = cuda().dispatch_async(compiled, inputs);
  CHECK(same_words("async", expected, words(pending.wait().at(0))));
  const auto timed = cuda().dispatch_timed(compiled, inputs);
  CHECK(same_words("timed", expected, words(timed.outputs.at(0))));
  CHECK(timed.timing.device_ns > 0);
  ByteVector out(std::uint64_t{n} * 4, std::byte{0xAB});
  std::vector<vyre::host::MutableBytes> targets{vyre::host::MutableBytes(out.data(), out.size())};
  cuda().dispatch_into(compiled, inputs, targets, vyre::DispatchConfig{});
  CHECK(same_words("into", expected, words(out)));
}

TEST_CASE("grid_sync programs run cooperatively when the grid fits, split otherwise, agreeing with the reference") {
  const vyre_device_profile profile = cuda().device_profile();
  const Program small = rotate_program(4096);      // 16 workgroups: co-resident
  const Program large = rotate_program(1u << 20);  // 4096 workgroups: more than fit
  const Program prefix_sum = vyre::load_program_file(example_path("prefix_sum.json"));
  DispatchConfig fixpoint;
  fixpoint.fixpoint_iterations = 3;

  auto run = [&](const vyre::host::Backend& backend, const Program& program, const DispatchConfig& config,
                 const char* what) {
    const auto inputs = random_inputs(program, 0, 99);
    const auto expected = expected_outputs(program, inputs, config);
    const auto actual = backend.dispatch(backend.compile(program), views(inputs), config);
    CHECK(same_outputs(what, program, inputs, expected, actual));
  };

  SUBCASE("default instance") {
    Delta delta(cuda());
    run(cuda(), small, {}, "rotate 4096 (cooperative)");
    run(cuda(), prefix_sum, {}, "prefix_sum example (cooperative)");
    run(cuda(), small, fixpoint, "rotate 4096 x3 fixpoint");
    if (profile.cooperative_launch) {
      CHECK(delta("cooperative_launches") == 5);  // 1 + 1 + 3 launches of the whole program
      CHECK(delta("split_grid_sync_dispatches") == 0);
    }
    Delta split(cuda());
    run(cuda(), large, {}, "rotate 1M (split: grid too large to be co-resident)");
    CHECK(split("cooperative_launches") == 0);
    CHECK(split("split_grid_sync_dispatches") == 1);
    CHECK(split("kernel_launches") == 2);  // one launch per phase
  }
  SUBCASE("VYRE_CUDA_FORCE_SPLIT_GRID_SYNC=1") {
    ScopedEnv force("VYRE_CUDA_FORCE_SPLIT_GRID_SYNC", "1");
    const auto forced = open_backend("cuda");
    Delta delta(forced);
    run(forced, small, {}, "rotate 4096 (forced split)");
    run(forced, prefix_sum, {}, "prefix_sum example (forced split)");
    run(forced, small, fixpoint, "rotate 4096 x3 fixpoint (forced split)");
    CHECK(delta("cooperative_launches") == 0);
    CHECK(delta("split_grid_sync_dispatches") == 3);
    CHECK(delta("kernel_launches") == 2 + 2 + 6);
    // A compiled pipeline of a split grid_sync program replays one captured graph (when asked to).
    ScopedEnv capture("VYRE_CUDA_PIPELINE_CAPTURE", "1");
    const auto inputs = random_inputs(small, 0, 5);
    const auto expected = expected_outputs(small, inputs);
    const auto pipeline = forced.pipeline(forced.compile(small));
    Delta graphs(forced);
    for (int k = 0; k < 4; ++k) {
      CHECK(same_outputs("split pipeline", small, inputs, expected, pipeline.dispatch(views(inputs))));
    }
    CHECK(graphs("graph_builds") == 1);
    CHECK(graphs("graph_launches") == 4);
  }
}

TEST_CASE("8 threads dispatching on one instance each get their own results") {
  std::vector<Program> programs{affine_program(2048), rotate_program(2048),
                                vyre::load_program_file(example_path("xor.json"))};
  struct Job {
    std::size_t program;
    std::vector<ByteVector> inputs;
    std::vector<ByteVector> expected;
  };
  std::vector<Job> jobs;
  std::vector<vyre::host::Program> compiled;
  for (std::size_t p = 0; p < programs.size(); ++p) {
    compiled.push_back(cuda().compile(programs[p]));
    for (std::uint64_t s = 0; s < 4; ++s) {
      auto inputs = random_inputs(programs[p], 1000 + 100 * s, 1000 * p + s);
      auto expected = expected_outputs(programs[p], inputs);
      jobs.push_back(Job{p, std::move(inputs), std::move(expected)});
    }
  }
  const auto failures = run_threads(8, [&](int t, Failures& found) {
    for (int iteration = 0; iteration < 40; ++iteration) {
      const Job& job = jobs[(t * 7 + iteration) % jobs.size()];
      try {
        std::vector<ByteVector> actual;
        switch (iteration % 3) {
          case 0: actual = cuda().dispatch(compiled[job.program], views(job.inputs)); break;
          case 1: actual = cuda().dispatch_async(compiled[job.program], views(job.inputs)).wait(); break;
          default: actual = cuda().dispatch_timed(compiled[job.program], views(job.inputs)).outputs; break;
        }
        if (actual != job.expected) {
          found.add("thread " + std::to_string(t) + " iteration " + std::to_string(iteration), [&] {
            same_outputs("concurrent dispatch", programs[job.program], job.inputs, job.expected, actual);
          });
        }
      } catch (const std::exception& error) {
        found.add("thread " + std::to_string(t) + ": " + error.what());
      }
    }
  });
  CHECK(failures.empty());
}

TEST_CASE("device limits fail before any device work and write no output") {
  const Program program = vyre::load_program_file(example_path("xor.json"));
  const auto compiled = cuda().compile(program);
  const auto inputs = random_inputs(program, 0, 3);
  ByteVector out(4096, std::byte{0xAB});
  std::vector<vyre::host::MutableBytes> targets{vyre::host::MutableBytes(out.data(), out.size())};

  DispatchConfig deep;  // workgroup z above the device's 64
  deep.grid = std::array<std::uint32_t, 3>{1, 1, 1};
  deep.workgroup_override = std::array<std::uint32_t, 3>{1, 1, 128};
  DispatchConfig tall;  // grid y above 65535
  tall.grid = std::array<std::uint32_t, 3>{1, 70000, 1};
  for (const DispatchConfig& config : {deep, tall}) {
    Delta delta(cuda());
    const std::string message = expect_error([&] { cuda().dispatch_into(compiled, views(inputs), targets, config); },
                                             VYRE_ERR_LIMIT);
    std::cout << "limit error: " << message << std::endl;
    CHECK(delta("kernel_launches") == 0);
    CHECK(delta("h2d_operations") == 0);
    CHECK(delta("memset_operations") == 0);
    CHECK(std::all_of(out.begin(), out.end(), [](std::byte b) { return b == std::byte{0xAB}; }));
  }
}

TEST_CASE("a time limit stops submitting fixpoint iterations (VYRE_ERR_TIMEOUT, no output written)") {
  // 2^32 - 1 iterations of a small program: hours of launches without a limit. Kernels already
  // queued when the deadline passes still run (a running kernel cannot be stopped), so the bound
  // is the deadline plus the stream's queue draining.
  using namespace vyre::dsl;
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto data = b.buffer("data", vyre::Access::ReadWrite, vyre::Type::U32, 4096);
  vyre::Expr i = b.let("i", invocation_id(0));
  b.store(data, i, data[i] + u32(1));
  const auto compiled = cuda().compile(b.build());
  ByteVector input(4096 * 4, std::byte{0});
  ByteVector out(4096 * 4, std::byte{0xAB});
  std::vector<vyre::host::MutableBytes> targets{vyre::host::MutableBytes(out.data(), out.size())};
  DispatchConfig forever;
  forever.dispatch_elements = 4096;
  forever.fixpoint_iterations = 0xFFFFFFFFu;
  forever.time_limit_ns = 200'000'000;
  const auto start = std::chrono::steady_clock::now();
  expect_error([&] { cuda().dispatch_into(compiled, std::vector<vyre::host::Bytes>{input}, targets, forever); },
               VYRE_ERR_TIMEOUT);
  const auto took = std::chrono::steady_clock::now() - start;
  std::cout << "time-limited dispatch returned after "
            << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms (limit 200 ms)" << std::endl;
  CHECK(took < std::chrono::seconds(10));
  CHECK(std::all_of(out.begin(), out.end(), [](std::byte x) { return x == std::byte{0xAB}; }));
  forever.fixpoint_iterations = 3;  // within the limit: the right answer
  const auto three = cuda().dispatch(compiled, std::vector<vyre::host::Bytes>{input}, forever);
  CHECK(three.at(0) == expected_outputs(compiled.ir(), {input}, forever).at(0));
}

TEST_CASE("compiled pipelines replay one captured graph per input shape (VYRE_CUDA_PIPELINE_CAPTURE=1)") {
  ScopedEnv capture("VYRE_CUDA_PIPELINE_CAPTURE", "1");  // image staging: plain dispatches by default
  const Program program = affine_program(4096);
  const auto pipeline = cuda().pipeline(cuda().compile(program));
  Delta delta(cuda());
  for (int k = 0; k < 10; ++k) {
    const auto inputs = random_inputs(program, k % 2 == 0 ? 1000 : 3000, 500 + k);
    CHECK(same_outputs("pipeline shape " + std::to_string(k % 2), program, inputs, expected_outputs(program, inputs),
                       pipeline.dispatch(views(inputs))));
  }
  CHECK(delta("graph_builds") == 2);  // one per shape, never per call
  CHECK(delta("graph_launches") == 10);
  CHECK(delta("graph_fallbacks") == 0);
}

TEST_CASE("workgroup memory at the declared and overridden workgroup sizes agrees with the reference") {
  // The optimizer drops the bounds checks of tile accesses it proves in range for the module's
  // launch workgroup size; each size gets its own module (.reqntid). At 512 invocations local_id
  // passes the 256-element tile: those stores must be dropped and loads read 0, as the reference does.
  using namespace vyre::dsl;
  const std::uint32_t n = 3000;
  vyre::ProgramBuilder b;
  b.workgroup(128);
  auto x = b.buffer("x", vyre::Access::Read, vyre::Type::U32);
  auto out = b.buffer("out", vyre::Access::Output, vyre::Type::U32, n);
  auto tile = b.buffer("tile", vyre::Access::Workgroup, vyre::Type::U32, 256);
  auto lid = b.let("lid", local_id(0));
  auto gid = b.let("gid", invocation_id(0));
  b.store(tile, lid, x[gid] + u32(1));
  b.barrier();
  b.let("v", tile[lid ^ u32(1)] * u32(3) + tile[u32(255) - (lid & u32(255))]);
  b.loop("k", u32(0), u32(4), [&](vyre::Expr k) { b.assign("v", var("v") + tile[k * u32(64) + (lid & u32(63))]); });
  b.if_(lt(gid, out.len()), [&] { b.store(out, gid, var("v")); });
  const Program program = b.build();
  const auto compiled = cuda().compile(program);
  const auto inputs = random_inputs(program, n - 100, 77);
  Delta delta(cuda());
  for (const std::uint32_t size : {128u, 64u, 256u, 512u, 1024u, 128u}) {
    CAPTURE(size);
    DispatchConfig config;
    if (size != 128) config.workgroup_override = std::array<std::uint32_t, 3>{size, 1, 1};
    const auto expected = expected_outputs(program, inputs, config);
    const auto actual = cuda().dispatch(compiled, views(inputs), config);
    CHECK(same_outputs("tile program", program, inputs, expected, actual));
  }
  CHECK(delta("module_cache_misses") == 4);  // 64, 256, 512, 1024; 128 is compile()'s module
}

TEST_CASE("caches: the PTX is lowered once per process and each instance loads each module once") {
  const Program program = increment_program(777);
  cuda().compile(program);
  const auto second = open_backend("cuda");
  Delta delta(second);
  second.compile(program);
  second.compile(program);
  CHECK(delta("ptx_cache_hits") >= 1);
  CHECK(delta("ptx_cache_misses") == 0);
  CHECK(delta("module_cache_misses") == 1);
  CHECK(delta("module_cache_hits") >= 1);
  const char* cache = std::getenv("CUDA_CACHE_PATH");
  REQUIRE(cache != nullptr);
  CHECK(std::filesystem::is_directory(cache));
}

TEST_CASE("telemetry counts launches, transfers and pooled memory; only the output range is read back") {
  // Staged through device memory (image): mapped dispatches move no copies to count.
  ScopedEnv off("VYRE_CUDA_DISABLE_MAPPED_HOST", "1");
  const auto backend = open_backend("cuda");
  const Program program = ranged_xor_program(1024, 400, 1200);
  const auto compiled = backend.compile(program);
  const auto inputs = random_inputs(program, 0, 11);
  const auto expected = expected_outputs(program, inputs);
  backend.dispatch(compiled, views(inputs));  // warm the pools
  Delta delta(backend);
  const auto actual = backend.dispatch(compiled, views(inputs));
  CHECK(same_outputs("ranged xor", program, inputs, expected, actual));
  REQUIRE(actual.size() == 1);
  CHECK(actual[0].size() == 800);
  CHECK(delta("dispatches") == 1);
  CHECK(delta("kernel_launches") == 1);
  CHECK(delta("h2d_operations") == 1);        // one image: both inputs and the zeroed output
  CHECK(delta("h2d_bytes") == 3 * 4096);
  CHECK(delta("d2h_operations") == 1);
  CHECK(delta("d2h_bytes") == 800);
  CHECK(delta("memset_operations") == 0);
  CHECK(delta("device_pool_hits") >= 1);
  CHECK(delta("device_pool_misses") == 0);
  CHECK(delta("sync_points") >= 1);
}

namespace {

// An elementwise program (codegen/elementwise.hpp) mixing 4- and 8-byte elements, a float store
// that can be NaN (canonical), an index variable, an Assign, BufLen and a runtime-sized input that
// may be shorter than the outputs (its out-of-bounds loads read 0).
Program mixed_elementwise(std::uint32_t n) {
  using namespace vyre::dsl;
  vyre::ProgramBuilder b;
  b.workgroup(128);
  auto a = b.buffer("a", vyre::Access::Read, vyre::Type::U32);
  auto f = b.buffer("f", vyre::Access::Read, vyre::Type::F32, n);
  auto w = b.buffer("w", vyre::Access::Read, vyre::Type::U64, n);
  auto words = b.buffer("words", vyre::Access::Output, vyre::Type::U32, n);
  auto roots = b.buffer("roots", vyre::Access::Output, vyre::Type::F32, n);
  auto wide = b.buffer("wide", vyre::Access::Output, vyre::Type::F64, n);
  auto i = b.let("i", invocation_id(0));
  auto j = b.let("j", i);
  b.let("v", a[j] ^ (i * u32(2654435761u)));
  b.assign("v", var("v") + a.len());
  b.store(words, i, var("v"));
  b.store(roots, j, un(vyre::UnOp::Sqrt, f[i]));  // negative inputs: NaN, stored canonical
  b.store(wide, i, cast(vyre::Type::F64, w[j]) * f64(0.5) + cast(vyre::Type::F64, f[i]));
  return b.build();
}

// x = x * 3 + y on resident buffers (x read_write).
Program mix_resident(std::uint32_t n) { return vyre::cudatest::mix_program(n); }

}  // namespace

TEST_CASE("elementwise programs: the vectorised entry agrees with the reference at every size and config") {
  // Sizes around the 4-lane groups and the workgroup, the 256 KiB mapped-dispatch limit and the
  // 1 MiB image limit (the largest runs the copies path).
  const std::vector<std::uint32_t> sizes{1, 3, 4, 5, 127, 1023, 1025, 4099, 9000, 40003};
  for (const std::uint32_t n : sizes) {
    CAPTURE(n);
    const Program program = mixed_elementwise(n);
    const auto compiled = cuda().compile(program);
    for (const std::uint32_t a_count : {n, n > 5 ? n - 5 : n}) {
      CAPTURE(a_count);
      const auto inputs = random_inputs(program, a_count, 1000 + n + a_count);
      std::vector<DispatchConfig> configs(4);
      configs[1].dispatch_elements = n > 2 ? n - 2 : n;
      configs[2].workgroup_override = std::array<std::uint32_t, 3>{64, 1, 1};
      configs[3].grid = std::array<std::uint32_t, 3>{(n + 127) / 128, 1, 1};  // explicit grid: whole entry
      for (std::size_t c = 0; c < configs.size(); ++c) {
        CAPTURE(c);
        Delta delta(cuda());
        const auto expected = expected_outputs(program, inputs, configs[c]);
        const auto actual = cuda().dispatch(compiled, views(inputs), configs[c]);
        CHECK(same_outputs("mixed elementwise", program, inputs, expected, actual));
        CHECK(delta("elementwise_launches") == (c == 3 ? 0u : 1u));
      }
    }
  }
  // Resident: x and y bound to one buffer (aliased), at a size with a partial last group.
  const std::uint32_t n = 1029;
  const Program mix = mix_resident(n);
  const auto x0 = random_elements(vyre::Type::U32, n, 5);
  auto run = [&](const vyre::host::Backend& backend) {
    const auto buffer = backend.alloc(n * 4);
    backend.upload(buffer, 0, vyre::host::Bytes(x0.data(), x0.size()));
    const std::vector<vyre::host::Binding> bindings{vyre::host::Binding::of(buffer), vyre::host::Binding::of(buffer)};
    backend.dispatch_resident(backend.compile(mix), bindings);
    return backend.download(buffer, 0, n * 4);
  };
  CHECK(run(cuda()) == run(reference()));
}

namespace {

// sin v and cos v of one f32 v (`shared`: the emitter reduces v once for both, codegen/math_call.cpp;
// otherwise each use reads its own copy of v, a register of its own, and reduces it itself), in the
// elementwise entry's shape, and with v assigned between uses and sin inside a branch.
Program sin_cos_uses(std::uint32_t n, bool branches, bool shared) {
  using namespace vyre::dsl;
  vyre::ProgramBuilder b;
  b.workgroup(128);
  auto x = b.buffer("x", vyre::Access::Read, vyre::Type::F32, n);
  auto s = b.buffer("s", vyre::Access::Output, vyre::Type::F32, n);
  auto c = b.buffer("c", vyre::Access::Output, vyre::Type::F32, n);
  auto m = b.buffer("m", vyre::Access::Output, vyre::Type::F32, n);
  auto i = b.let("i", invocation_id(0));
  int copies = 0;
  auto use = [&](vyre::UnOp op, const vyre::Expr& v) {
    return un(op, shared ? v : b.let("v" + std::to_string(copies++), v));
  };
  if (!branches) {
    auto v = b.let("v", x[i]);
    b.store(s, i, use(vyre::UnOp::Sin, v));
    b.store(c, i, use(vyre::UnOp::Cos, v));
    auto product = use(vyre::UnOp::Sin, v) * use(vyre::UnOp::Cos, v);
    b.store(m, i, product + un(vyre::UnOp::Sin, v * f32(0.5f)));
    return b.build();
  }
  b.if_(lt(i, u32(n)), [&] {
    auto v = b.let("v", x[i]);
    b.if_(eq(i % u32(3), u32(0)), [&] { b.store(s, i, use(vyre::UnOp::Sin, v)); },
          [&] {
            auto sum = use(vyre::UnOp::Cos, v) + use(vyre::UnOp::Sin, v);
            b.store(s, i, sum);
          });
    b.store(c, i, use(vyre::UnOp::Cos, v));
    b.assign("v", v * f32(3.0f));
    auto difference = use(vyre::UnOp::Sin, v) - use(vyre::UnOp::Cos, v);
    b.store(m, i, difference);
  });
  return b.build();
}

// f32 inputs over every exponent: random bit patterns (huge arguments take the Payne-Hanek path;
// NaN, inf, subnormals), random values near the trigonometric range, and the signed zeros.
ByteVector trig_inputs(std::uint32_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> near(-40.0f, 40.0f);
  ByteVector bytes(std::size_t{n} * 4);
  for (std::uint32_t k = 0; k < n; ++k) {
    std::uint32_t bits = static_cast<std::uint32_t>(rng());
    if (k % 2 == 0) bits = std::bit_cast<std::uint32_t>(near(rng));
    if (k == 0) bits = 0x80000000u;
    if (k == 1) bits = 0;
    std::memcpy(bytes.data() + std::size_t{k} * 4, &bits, 4);
  }
  return bytes;
}

}  // namespace

// The library's sin and cos are within SPEC §5 of the exact values (conform and the exhaustive
// runs certify them), not bit-equal to reference_cpu's: sharing is checked against the unshared
// evaluation on the same device, bit for bit.
TEST_CASE("f32 sin and cos of one value, reduced once, give the bits of separate evaluations") {
  const std::uint32_t n = 1 << 16;
  for (bool branches : {false, true}) {
    CAPTURE(branches);
    const std::vector<ByteVector> inputs{trig_inputs(n, branches ? 7 : 3)};
    const Program shared = sin_cos_uses(n, branches, true);
    const Program separate = sin_cos_uses(n, branches, false);
    const auto expected = cuda().dispatch(cuda().compile(separate), views(inputs));
    const auto actual = cuda().dispatch(cuda().compile(shared), views(inputs));
    CHECK(same_outputs("sin and cos of one value", shared, inputs, expected, actual));
  }
}

TEST_CASE("small elementwise host dispatches run on mapped memory, with no copies") {
  const Program program = ranged_xor_program(1024, 400, 1200);
  const auto inputs = random_inputs(program, 0, 11);
  const auto expected = expected_outputs(program, inputs);
  const auto compiled = cuda().compile(program);
  cuda().dispatch(compiled, views(inputs));
  Delta delta(cuda());
  CHECK(same_outputs("mapped", program, inputs, expected, cuda().dispatch(compiled, views(inputs))));
  CHECK(delta("mapped_dispatches") == 1);
  CHECK(delta("elementwise_launches") == 1);
  CHECK(delta("h2d_operations") == 0);
  CHECK(delta("d2h_operations") == 0);
  CHECK(delta("memset_operations") == 0);
}

namespace {

// Median host wall time of `call`, in microseconds, after a warm-up.
template <class Call>
double median_us(int reps, const Call& call) {
  for (int k = 0; k < 20; ++k) call();
  std::vector<double> samples;
  for (int k = 0; k < reps; ++k) {
    const auto start = std::chrono::steady_clock::now();
    call();
    samples.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(samples.begin(), samples.begin() + reps / 2, samples.end());
  return samples[reps / 2];
}

}  // namespace

TEST_CASE("a compiled pipeline is no slower than a plain dispatch, for each staging") {
  // Mapped shapes replay their own kernel graph (checked); image and copies shapes are plain
  // dispatches (printed: the plain path's own timing is bimodal there, 12-13 or ~20 us for P2).
  struct Case {
    std::string name;
    Program program;
    std::vector<std::vector<std::uint32_t>> inputs;
    int reps;
    bool checked;
  };
  const std::vector<Case> cases{
      {"mapped (xor, 2x1024 u32: bench P2)", xor_program(1024), {random_words(1024, 1), random_words(1024, 2)}, 2000, true},
      {"image (affine, 4096 u32)", affine_program(4096), {random_words(4096, 3)}, 2000, false},
      {"copies (affine, 300000 u32)", affine_program(300000), {random_words(300000, 4)}, 200, false}};
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const auto compiled = cuda().compile(c.program);
    const auto pipeline = cuda().pipeline(compiled);
    std::vector<vyre::host::Bytes> inputs;
    for (const auto& input : c.inputs) inputs.push_back(bytes(input));
    REQUIRE(pipeline.dispatch(inputs) == cuda().dispatch(compiled, inputs));
    const double plain = median_us(c.reps, [&] { cuda().dispatch(compiled, inputs); });
    const double piped = median_us(c.reps, [&] { pipeline.dispatch(inputs); });
    const double plain_again = median_us(c.reps, [&] { cuda().dispatch(compiled, inputs); });
    std::cout << "pipeline vs plain, " << c.name << ": plain " << plain << " us, pipeline " << piped
              << " us, plain again " << plain_again << " us";
    if (!c.checked) {  // the measurement behind the default: a captured graph of the same work
      ScopedEnv capture("VYRE_CUDA_PIPELINE_CAPTURE", "1");  // read when the shape is built
      const auto captured = cuda().pipeline(compiled);
      REQUIRE(captured.dispatch(inputs) == cuda().dispatch(compiled, inputs));
      std::cout << ", captured graph " << median_us(c.reps, [&] { captured.dispatch(inputs); }) << " us";
    }
    std::cout << std::endl;
    if (c.checked) CHECK(piped <= std::min(plain, plain_again) * 1.10 + 0.5);
  }
}
