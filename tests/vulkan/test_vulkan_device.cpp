// The Vulkan backend on a real device (lavapipe in CI, the GPU on the GPU machine): every dispatch
// surface gives the reference's bytes, large grids are split, resident buffers and sequences keep
// their order, the pipeline cache file round-trips and a damaged one is ignored, concurrent callers
// share one instance, thousands of dispatches reuse their command pools with the right results,
// ops the device lacks are refused at compile, fma is bit-exact both through the device's fma
// source (VK_KHR_shader_fma's OpFmaKHR, GLSL.std.450 Fma after a passed probe, f32 computed in
// f64 after a failed one where the device has f64 (lavapipe), or the emulation; the test
// prints which) and through the exact emulation (VYRE_VULKAN_DISABLE_NATIVE_FMA=1, which also
// skips the probe), f32 fma gives std::fma's bits over edge, tie, cancellation and subnormal-result
// triples, a passed probe (forced with the test hook VYRE_VULKAN_FMA_PROBE_TABLE=exact) gives GLSL
// Fma, and div/sqrt/reciprocal are bit-exact seeded and exact (VYRE_VULKAN_SEEDED_DIV_SQRT;
// printed too). Exits 77 without a device.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <unistd.h>
#include <thread>

#include "vulkan_support.hpp"
#include "vyre/builder.hpp"
#include "vyre/error.hpp"

namespace {

using namespace vyre::dsl;
using vyre::Access;
using vyre::Type;
using vyre::host::ByteVector;
using vyre::host::Bytes;
namespace vt = vyre::vulkantest;

// out[i] = a[i] * 3 + b[i] (u32) and f[i] = fa[i] * 0.5 + fa[i] (f32), for N = the largest output.
vyre::Program mixed_program(std::uint32_t n) {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto a = b.buffer("a", Access::Read, Type::U32);
  auto bb = b.buffer("b", Access::Uniform, Type::U32);
  auto fa = b.buffer("fa", Access::Read, Type::F32);
  auto out = b.buffer("out", Access::Output, Type::U32, n);
  auto f = b.buffer("f", Access::Output, Type::F32, n);
  auto i = b.let("i", invocation_id(0));
  b.store(out, i, a[i] * u32(3) + bb[i]);
  b.store(f, i, fa[i] * f32(0.5f) + fa[i]);
  return b.build();
}

std::vector<ByteVector> mixed_inputs(std::uint32_t n) {
  std::vector<std::uint32_t> a(n), b(n);
  std::vector<float> f(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    a[i] = i * 2654435761u;
    b[i] = ~i;
    f[i] = static_cast<float>(i) * 0.37f - 100.0f;
  }
  f[0] = 1e-40f;  // a subnormal
  return {vt::bytes_of(a), vt::bytes_of(b), vt::bytes_of(f)};
}

std::vector<Bytes> spans(const std::vector<ByteVector>& v) {
  std::vector<Bytes> out;
  for (const auto& x : v) out.emplace_back(x);
  return out;
}

// x[i] = x[i] + k[i] (u32, read_write x).
vyre::Program accumulate_program() {
  vyre::ProgramBuilder b;
  b.workgroup(32);
  auto x = b.buffer("x", Access::ReadWrite, Type::U32);
  auto k = b.buffer("k", Access::Read, Type::U32);
  auto i = b.let("i", invocation_id(0));
  b.store(x, i, x[i] + k[i]);
  return b.build();
}

}  // namespace

TEST_CASE("host dispatch: sync, async, timed and pipeline agree with the reference") {
  const auto vk = vt::vulkan();
  const std::uint32_t n = 1000;
  const vyre::Program ir = mixed_program(n);
  const auto inputs = mixed_inputs(n);
  const auto expected = vt::reference().dispatch(vt::reference().compile(ir), spans(inputs));
  const auto program = vk.compile(ir);
  CHECK(vk.dispatch(program, spans(inputs)) == expected);
  CHECK(vk.dispatch_async(program, spans(inputs)).wait() == expected);
  const auto timed = vk.dispatch_timed(program, spans(inputs));
  CHECK(timed.outputs == expected);
  CHECK(timed.timing.has_device_ns);
  CHECK(timed.timing.wall_ns >= timed.timing.wait_ns);
  CHECK(vk.pipeline(program).dispatch(spans(inputs)) == expected);
  CHECK(vt::metric(vk, "dispatches") >= 4);
  CHECK(vt::metric(vk, "programs_compiled") == 1);
}

TEST_CASE("an empty dispatch still returns zero-filled outputs") {
  const auto vk = vt::vulkan();
  const vyre::Program ir = mixed_program(16);
  vyre::DispatchConfig config;
  config.dispatch_elements = 0;
  const std::vector<ByteVector> inputs{{}, {}, {}};
  const auto out = vk.dispatch(vk.compile(ir), spans(inputs), config);
  REQUIRE(out.size() == 2);
  CHECK(out[0] == ByteVector(64, std::byte{0}));
  CHECK(out[1] == ByteVector(64, std::byte{0}));
}

TEST_CASE("a grid beyond the per-dispatch limit runs as chunks that see the whole grid") {
  const auto vk = vt::vulkan();
  const std::uint32_t gy = 70000;  // above 65535, the minimum Vulkan limit (and lavapipe's, NVIDIA's y limit)
  vyre::ProgramBuilder b;
  b.workgroup(1);
  auto out = b.buffer("out", Access::Output, Type::U32, 2 * gy);
  b.store(out, workgroup_id(1) * u32(2) + workgroup_id(0), workgroup_id(1) + num_workgroups(1) * u32(16));
  vyre::DispatchConfig config;
  config.grid = {2, gy, 1};
  const auto got = vt::values_of<std::uint32_t>(vk.dispatch(vk.compile(b.build()), {}, config).at(0));
  REQUIRE(got.size() == 2 * gy);
  bool all = true;
  for (std::uint32_t y = 0; y < gy && all; ++y)
    for (std::uint32_t x = 0; x < 2; ++x) all = all && got[y * 2 + x] == y + gy * 16;
  CHECK(all);
  CHECK(vt::metric(vk, "compute_dispatches") >= 2);
}

TEST_CASE("resident buffers: zero at allocation, uploads and downloads at offsets, dispatch, sequence") {
  const auto vk = vt::vulkan();
  const std::uint32_t n = 100;
  const auto program = vk.compile(accumulate_program());
  auto x = vk.alloc(n * 4);
  auto k = vk.alloc(n * 4);
  CHECK(vk.download(x, 0, n * 4) == ByteVector(n * 4, std::byte{0}));
  std::vector<std::uint32_t> ones(n, 1), tail{7, 8, 9};
  vk.upload(k, 0, vt::bytes_of(ones));
  vk.upload(x, 12, vt::bytes_of(tail));
  CHECK(vt::values_of<std::uint32_t>(vk.download(x, 12, 12)) == tail);
  const std::vector<vyre::host::Binding> bindings{vyre::host::Binding::of(x), vyre::host::Binding::of(k)};
  vk.dispatch_resident(program, bindings);
  auto pending = vk.dispatch_resident_async(program, bindings);
  vyre_status busy = VYRE_OK;
  try {
    x.free();  // in flight until the pending dispatch is waited for
  } catch (const vyre::Error& e) {
    busy = e.code();
  }
  CHECK(busy == VYRE_ERR_BUSY);
  pending.wait();
  vyre::host::Sequence seq;
  seq.prefix.push_back({program, {}, {x, k}});
  seq.repeated.push_back({program, {}, {x, k}});
  seq.repeat_count = 5;
  ByteVector read(n * 4);
  seq.reads.push_back({x, 0, read});
  vk.sequence(seq);
  const auto final_x = vt::values_of<std::uint32_t>(read);
  CHECK(final_x[0] == 8);       // 2 dispatches + 1 prefix + 5 repeats
  CHECK(final_x[3] == 7 + 8);
  const auto timing = vk.dispatch_resident_timed(program, bindings);
  CHECK(timing.has_device_ns);
  CHECK(vt::values_of<std::uint32_t>(vk.download(x, 0, 4))[0] == 9);
}

TEST_CASE("thousands of dispatches reuse their command pools and give the right results on alternating buffers") {
  const auto vk = vt::vulkan();
  const std::uint32_t n = 256;
  const auto program = vk.compile(accumulate_program());
  // Two independent accumulators: x0 += 1 and x1 += 2 per dispatch, dispatched alternately, so a
  // command buffer reused with the other pair's bindings (or before its last use finished) shows.
  auto x0 = vk.alloc(n * 4), k0 = vk.alloc(n * 4), x1 = vk.alloc(n * 4), k1 = vk.alloc(n * 4);
  vk.upload(k0, 0, vt::bytes_of(std::vector<std::uint32_t>(n, 1)));
  vk.upload(k1, 0, vt::bytes_of(std::vector<std::uint32_t>(n, 2)));
  const std::vector<vyre::host::Binding> pair0{vyre::host::Binding::of(x0), vyre::host::Binding::of(k0)};
  const std::vector<vyre::host::Binding> pair1{vyre::host::Binding::of(x1), vyre::host::Binding::of(k1)};
  vk.reset_metrics();

  // 20 rounds of 100 asynchronous dispatches in flight, then a wait for all of them, with a
  // synchronous and a timed dispatch between rounds.
  std::uint32_t count0 = 0, count1 = 0;
  for (int round = 0; round < 20; ++round) {
    std::vector<vyre::host::PendingDispatch> pending;
    for (int i = 0; i < 100; ++i) {
      const bool first = (round + i) % 2 == 0;
      pending.push_back(vk.dispatch_resident_async(program, first ? pair0 : pair1));
      ++(first ? count0 : count1);
    }
    for (const auto& p : pending) (void)p.wait();
    vk.dispatch_resident(program, pair0);
    ++count0;
    CHECK(vk.dispatch_resident_timed(program, pair1).has_device_ns);
    ++count1;
  }
  const auto got0 = vt::values_of<std::uint32_t>(vk.download(x0, 0, n * 4));
  const auto got1 = vt::values_of<std::uint32_t>(vk.download(x1, 0, n * 4));
  CHECK(got0 == std::vector<std::uint32_t>(n, count0));
  CHECK(got1 == std::vector<std::uint32_t>(n, 2 * count1));
  CHECK(vt::metric(vk, "resident_dispatches") == 2040);
  // Asynchronous dispatches queued together share submissions (never more than one each).
  CHECK(vt::metric(vk, "submissions") <= 2040);
  // The first round makes at most one command pool per dispatch in flight; later rounds reuse them
  // (one per dispatch would be ~2000).
  const std::uint64_t pools = vt::metric(vk, "command_pools_created");
  INFO("command pools created: " << pools);
  CHECK(pools <= 150);

  // Queued work starts without a wait: polling alone sees it finish (the submit thread hands it
  // to the queue), and a pending dropped unwaited still runs before its buffers are reused.
  {
    auto polled = vk.dispatch_resident_async(program, pair0);
    ++count0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    bool done = false;
    while (!(done = polled.poll()) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    CHECK(done);
    (void)vk.dispatch_resident_async(program, pair1);  // dropped at once
    ++count1;
  }

  // Many more dispatches in flight than the pool keeps: enqueueing waits for the oldest rather than
  // making a command pool each; nothing is lost or run twice.
  vk.reset_metrics();
  std::vector<vyre::host::PendingDispatch> flood;
  for (int i = 0; i < 3000; ++i) flood.push_back(vk.dispatch_resident_async(program, i % 2 == 0 ? pair0 : pair1));
  for (const auto& p : flood) (void)p.wait();
  flood.clear();
  CHECK(vt::metric(vk, "command_pools_created") <= 1024);
  CHECK(vt::values_of<std::uint32_t>(vk.download(x0, 0, 4))[0] == count0 + 1500);
  CHECK(vt::values_of<std::uint32_t>(vk.download(x1, 0, 4))[0] == 2 * (count1 + 1500));

  // Host dispatches, asynchronous ones overlapping, with inputs alternating between two sets: each
  // result belongs to its own inputs (staging and command buffers reused only once finished).
  vk.reset_metrics();
  const vyre::Program ir = mixed_program(n);
  const auto inputs_a = mixed_inputs(n);
  auto inputs_b = mixed_inputs(n);
  std::reverse(inputs_b[0].begin(), inputs_b[0].end());
  const auto ref = vt::reference().compile(ir);
  const auto expected_a = vt::reference().dispatch(ref, spans(inputs_a));
  const auto expected_b = vt::reference().dispatch(ref, spans(inputs_b));
  const auto host_program = vk.compile(ir);
  int wrong = 0;
  for (int round = 0; round < 10; ++round) {
    std::vector<vyre::host::PendingDispatch> pending;
    for (int i = 0; i < 20; ++i) pending.push_back(vk.dispatch_async(host_program, spans(i % 2 == 0 ? inputs_a : inputs_b)));
    for (int i = 0; i < 20; ++i)
      if (pending[static_cast<std::size_t>(i)].wait() != (i % 2 == 0 ? expected_a : expected_b)) ++wrong;
    if (vk.dispatch(host_program, spans(inputs_b)) != expected_b) ++wrong;
  }
  CHECK(wrong == 0);
  CHECK(vt::metric(vk, "command_pools_created") <= 30);
}

TEST_CASE("the pipeline cache file is written at destroy, read at create, and ignored when damaged") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("vyre-vk-cache-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  vt::ScopedEnv env("VYRE_VULKAN_PIPELINE_CACHE_DIR", dir.c_str());
  {
    const auto vk = vt::vulkan();
    CHECK(vt::metric(vk, "pipeline_cache_loaded_bytes") == 0);
    vk.dispatch(vk.compile(accumulate_program()), spans({ByteVector(16), ByteVector(16)}));
  }
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files.push_back(e.path());
  REQUIRE(files.size() == 1);
  CHECK(files[0].filename().string().starts_with("vulkan-pipelines-"));
  const auto size = std::filesystem::file_size(files[0]);
  REQUIRE(size > 40);
  {
    const auto vk = vt::vulkan();
    CHECK(vt::metric(vk, "pipeline_cache_loaded_bytes") == size - 40);  // magic + SHA-256, then the data
  }
  {
    std::fstream f(files[0], std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size - 1));
    f.put('\x5a');  // damage the driver's data: the digest no longer matches
  }
  {
    const auto vk = vt::vulkan();
    CHECK(vt::metric(vk, "pipeline_cache_loaded_bytes") == 0);
    CHECK(vk.dispatch(vk.compile(accumulate_program()), spans({ByteVector(16), ByteVector(16)})).size() == 1);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("many threads share one instance") {
  const auto vk = vt::vulkan();
  const vyre::Program ir = mixed_program(256);
  const auto inputs = mixed_inputs(256);
  const auto expected = vt::reference().dispatch(vt::reference().compile(ir), spans(inputs));
  const auto program = vk.compile(ir);
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        const auto got = (t + i) % 2 == 0 ? vk.dispatch(program, spans(inputs)) : vk.dispatch_async(program, spans(inputs)).wait();
        if (got != expected) ++mismatches;
      }
    });
  for (auto& t : threads) t.join();
  CHECK(mismatches == 0);
}

TEST_CASE("ops the device lacks are refused at compile, declared ones it has compile") {
  const auto vk = vt::vulkan();
  vyre::ProgramBuilder b;
  b.workgroup(32);
  auto out = b.buffer("out", Access::Output, Type::U32, 32);
  b.store(out, local_id(0), ballot(eq(local_id(0) & u32(1), u32(0))));
  const vyre::Program ir = b.build();
  const std::uint32_t subgroup_width = vk.device_profile().subgroup_width;
  try {
    const auto got = vt::values_of<std::uint32_t>(vk.dispatch(vk.compile(ir), {}).at(0));
    CHECK(got == std::vector<std::uint32_t>(32, 0x55555555u));
    MESSAGE("this device runs 32-wide subgroups (native width " << subgroup_width << ")");
  } catch (const vyre::Error& e) {
    CHECK(e.code() == VYRE_ERR_UNSUPPORTED);
    CHECK(std::string(e.what()).find("subgroup.ballot") != std::string::npos);
    MESSAGE("this device refuses subgroup ops (native width " << subgroup_width << ")");
  }
}

namespace {

// out[i] = fma(a[i], x[i], y[i]) of `t` (F32 or F64).
vyre::Program fma_program(Type t, std::uint32_t n) {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto a = b.buffer("a", Access::Read, t);
  auto x = b.buffer("x", Access::Read, t);
  auto y = b.buffer("y", Access::Read, t);
  auto out = b.buffer("out", Access::Output, t, n);
  auto i = b.let("i", invocation_id(0));
  b.store(out, i, fma(a[i], x[i], y[i]));
  return b.build();
}

// Operands where fusing shows: y = -(a * x rounded), so a fused result is the product's rounding
// error and an unfused one 0; random bit patterns of every exponent; edge values.
template <class F, class U>
std::vector<ByteVector> fma_inputs(std::uint32_t n) {
  std::vector<F> a(n), x(n), y(n);
  std::uint64_t s = 0x9E3779B97F4A7C15ull;
  auto next = [&] {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  };
  auto any = [&] { return std::bit_cast<F>(static_cast<U>(next())); };
  auto unit = [&] { return static_cast<F>(1) + static_cast<F>(next() % 1000003) / static_cast<F>(1000003); };
  const F edges[] = {0, -0.0, 1, -1, std::numeric_limits<F>::infinity(), -std::numeric_limits<F>::infinity(),
                     std::numeric_limits<F>::quiet_NaN(), std::numeric_limits<F>::denorm_min(),
                     std::numeric_limits<F>::min(), std::numeric_limits<F>::max(), static_cast<F>(0.5)};
  constexpr std::uint32_t kEdges = sizeof(edges) / sizeof(edges[0]);
  for (std::uint32_t i = 0; i < n; ++i) {
    switch (i % 4) {
      case 0: a[i] = unit(); x[i] = unit(); y[i] = -(a[i] * x[i]); break;
      case 1: a[i] = any(); x[i] = any(); y[i] = any(); break;
      case 2: a[i] = unit() * std::numeric_limits<F>::min(); x[i] = unit(); y[i] = -(a[i] * x[i]); break;  // tiny
      default: a[i] = edges[i % kEdges]; x[i] = edges[(i / kEdges) % kEdges]; y[i] = edges[(i / 7) % kEdges]; break;
    }
  }
  return {vt::bytes_of(a), vt::bytes_of(x), vt::bytes_of(y)};
}

bool has_metric(const vyre::host::Backend& backend, std::string_view name) {
  for (const auto& m : backend.metrics())
    if (m.name == name) return true;
  return false;
}

// The fma of width `w` ("f32", "f64") from the gauges fma_source_*, fma_probe_*, fma_probe_mismatches_*.
std::string fma_source_text(const vyre::host::Backend& vk, const std::string& w) {
  const std::uint64_t source = vt::metric(vk, "fma_source_" + w), probe = vt::metric(vk, "fma_probe_" + w);
  const std::uint64_t mismatches = vt::metric(vk, "fma_probe_mismatches_" + w);
  if (source == 1) return "yes (extension: VK_KHR_shader_fma, OpFmaKHR)";
  if (source == 2) return "yes (probe: GLSL.std.450 Fma matched std::fma on every probe entry)";
  if (source == 3)
    return "no, wide: computed in f64 (probe: GLSL.std.450 Fma differed from std::fma on " +
           std::to_string(mismatches) + " probe entries)";
  if (probe == 2) return "no (probe: GLSL.std.450 Fma differed from std::fma on " + std::to_string(mismatches) +
                         " probe entries; exact integer emulation)";
  if (probe == 3) return "no (probe failed to run; exact integer emulation)";
  return "no (no extension, probe not run; exact integer emulation)";
}

}  // namespace

TEST_CASE("fma is bit-exact with the device's OpFmaKHR (VK_KHR_shader_fma) and with the emulation") {
  const std::uint32_t n = 4096;
  for (const char* disable : {"0", "1"}) {
    const vt::ScopedEnv env("VYRE_VULKAN_DISABLE_NATIVE_FMA", disable);
    const auto vk = vt::vulkan();
    REQUIRE(has_metric(vk, "native_fma_f32"));
    REQUIRE(has_metric(vk, "native_fma_f64"));
    const std::uint64_t f32 = vt::metric(vk, "native_fma_f32"), f64 = vt::metric(vk, "native_fma_f64");
    CHECK(f32 <= 1);
    CHECK(f64 <= 1);
    const bool disabled = std::string(disable) == "1";
    if (disabled) {
      CHECK(f32 == 0);
      CHECK(f64 == 0);
    } else {
      // The line the GPU runs' logs show: where each width's fma comes from.
      std::printf("vulkan device '%s': native fma: f32 %s; f64 %s\n", vk.device_profile().name,
                  fma_source_text(vk, "f32").c_str(), fma_source_text(vk, "f64").c_str());
      std::fflush(stdout);
    }
    for (Type t : {Type::F32, Type::F64}) {
      INFO(vyre::type_name(t) << (disabled ? ", VYRE_VULKAN_DISABLE_NATIVE_FMA=1" : ""));
      const vyre::Program ir = fma_program(t, n);
      const auto inputs = t == Type::F32 ? fma_inputs<float, std::uint32_t>(n) : fma_inputs<double, std::uint64_t>(n);
      std::optional<vyre::host::Program> program;
      try {
        program.emplace(vk.compile(ir));
      } catch (const vyre::Error& e) {
        CHECK(e.code() == VYRE_ERR_UNSUPPORTED);  // no f64 on this device
        MESSAGE("this device refuses fma." << vyre::type_name(t));
        continue;
      }
      const auto expected = vt::reference().dispatch(vt::reference().compile(ir), spans(inputs));
      CHECK(vk.dispatch(*program, spans(inputs)) == expected);
    }
  }
}

TEST_CASE("the fma probe decides each width's fma at create, and VYRE_VULKAN_DISABLE_NATIVE_FMA=1 skips it") {
  {
    const vt::ScopedEnv wide("VYRE_VULKAN_WIDE_FMA", "1");
    const auto vk = vt::vulkan();
    for (const std::string w : {"f32", "f64"}) {
      INFO(w);
      const std::uint64_t source = vt::metric(vk, "fma_source_" + w), probe = vt::metric(vk, "fma_probe_" + w);
      const std::uint64_t mismatches = vt::metric(vk, "fma_probe_mismatches_" + w);
      CHECK(vt::metric(vk, "native_fma_" + w) == (source == 1 || source == 2 ? 1u : 0u));
      if (source == 1) CHECK(probe == 0);  // the extension: no probe
      if (source == 2) {
        CHECK(probe == 1);
        CHECK(mismatches == 0);
      }
      if (source == 0 || source == 3) {
        CHECK(probe != 1);  // not passed (f64 on a device without shaderFloat64: not run)
        CHECK((probe == 2) == (mismatches > 0));
      }
      // Wide: f32 only, in place of the emulation wherever the device has f64.
      if (source == 3) CHECK(w == "f32");
      // A device with f64 (the f64 probe ran, or f64 has the extension) never emulates f32 fma.
      if (w == "f32" && (vt::metric(vk, "fma_probe_f64") != 0 || vt::metric(vk, "fma_source_f64") == 1)) CHECK(source != 0);
      CHECK(source <= 3);
      MESSAGE("fma " << w << ": " << fma_source_text(vk, w));
    }
    // The probe's own dispatches are not counted.
    CHECK(vt::metric(vk, "dispatches") == 0);
  }
  const vt::ScopedEnv env("VYRE_VULKAN_DISABLE_NATIVE_FMA", "1");
  const auto vk = vt::vulkan();
  for (const std::string w : {"f32", "f64"}) {
    INFO(w);
    CHECK(vt::metric(vk, "fma_source_" + w) == 0);
    CHECK(vt::metric(vk, "fma_probe_" + w) == 0);
    CHECK(vt::metric(vk, "native_fma_" + w) == 0);
  }
}

namespace {

// f32 operand triples whose fma is hard: every triple of edge values (zeros, subnormals, the normal
// range's ends, the overflow boundary, inf, NaN), f32 rounding ties that only an addend far below
// the product's 53 bits decides, cancellations of the rounded product, subnormal results.
void hard_f32_triples(std::vector<float>& a, std::vector<float>& x, std::vector<float>& y) {
  using L = std::numeric_limits<float>;
  std::vector<float> edges = {0.0f, L::denorm_min(), L::min() - L::denorm_min(), L::min(), 1.0f,
                              std::nextafter(1.0f, 2.0f), 1.5f, 3.0f, 0.1f, 0x1p-75f, 0x1p+64f, 0x1p+103f,
                              L::max(), std::nextafter(L::max(), 0.0f), L::infinity(), L::quiet_NaN()};
  const std::size_t n = edges.size();
  for (std::size_t i = 0; i < n; ++i) edges.push_back(-edges[i]);
  for (float p : edges)
    for (float q : edges)
      for (float r : edges) {
        a.push_back(p);
        x.push_back(q);
        y.push_back(r);
      }
  std::uint32_t s = 0x2545F491u;
  auto next = [&] {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
  };
  // x y = 2^128 - 2^103 (31 601 1801 2^103), the overflow midpoint, with z a tiny value of either sign.
  for (float z : {0x1p-126f, -0x1p-126f, 0x1p-20f, -0x1p-20f, 0.0f}) {
    a.push_back(std::ldexp(18631.0f, 60));
    x.push_back(std::ldexp(1801.0f, 43));
    y.push_back(z);
  }
  for (int i = 0; i < 8192; ++i) {
    const float sign = (next() & 1) ? -1.0f : 1.0f;
    // (1 + u 2^-12)(1 + v 2^-12), u and v odd: a tie at f32 precision.
    const float p = 1.0f + static_cast<float>(2 * (next() % 2048) + 1) * 0x1p-12f;
    const float q = 1.0f + static_cast<float>(2 * (next() % 2048) + 1) * 0x1p-12f;
    const int k = static_cast<int>(next() % 90) + 30;
    a.push_back(p * sign);
    x.push_back(q);
    y.push_back(i % 3 == 0 ? 0.0f : std::ldexp((i % 3 == 1) ? 1.0f : -1.0f, -k));
    // The rounded product cancelled: the result is its rounding error.
    const float c = std::bit_cast<float>(0x3F800000u | (next() & 0x7FFFFFu));
    const float d = std::bit_cast<float>(0x3F800000u | (next() & 0x7FFFFFu));
    a.push_back(c);
    x.push_back(d * sign);
    y.push_back(-(c * d * sign));
    // Products in the subnormal range, with and without an addend there.
    const float e = std::ldexp(c, -static_cast<int>(next() % 40) - 60);
    const float f = std::ldexp(d, -static_cast<int>(next() % 40) - 40);
    a.push_back(e);
    x.push_back(f * sign);
    y.push_back((i & 1) ? 0.0f : std::bit_cast<float>(next() & 0x807FFFFFu));
  }
}

// std::fma's bits over the hard triples; `wide_requested`: the source is wide wherever the device
// has f64 and no fused f32 fma (lavapipe: the probe fails), else never wide.
void check_hard_f32_triples(const vyre::host::Backend& vk, bool wide_requested) {
  const std::uint64_t source = vt::metric(vk, "fma_source_f32");
  MESSAGE("fma f32: " << fma_source_text(vk, "f32"));
  if (!wide_requested) CHECK(source != 3);
  if (wide_requested && vt::metric(vk, "fma_probe_f64") != 0 && source != 1 && source != 2) CHECK(source == 3);
  std::vector<float> a, x, y;
  hard_f32_triples(a, x, y);
  const auto n = static_cast<std::uint32_t>(a.size());
  const vyre::Program ir = fma_program(Type::F32, n);
  const std::vector<ByteVector> inputs = {vt::bytes_of(a), vt::bytes_of(x), vt::bytes_of(y)};
  const auto got = vk.dispatch(vk.compile(ir), spans(inputs));
  REQUIRE(got.size() == 1);
  REQUIRE(got[0].size() == std::size_t{n} * 4);
  std::size_t wrong = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    float r;
    std::memcpy(&r, got[0].data() + std::size_t{i} * 4, 4);
    const float expected = std::fma(a[i], x[i], y[i]);
    // NaN results are the canonical NaN (docs/SEMANTICS.md); everything else std::fma's bits.
    const bool ok = std::isnan(expected) ? std::bit_cast<std::uint32_t>(r) == 0x7FC00000u
                                         : std::bit_cast<std::uint32_t>(r) == std::bit_cast<std::uint32_t>(expected);
    if (ok || ++wrong > 5) continue;
    char text[160];
    std::snprintf(text, sizeof text, "fma(%a, %a, %a) = %a (0x%08x), expected %a (0x%08x)", static_cast<double>(a[i]),
                  static_cast<double>(x[i]), static_cast<double>(y[i]), static_cast<double>(r),
                  std::bit_cast<std::uint32_t>(r), static_cast<double>(expected), std::bit_cast<std::uint32_t>(expected));
    FAIL_CHECK(text);
  }
  CHECK(wrong == 0);
  MESSAGE(n << " f32 fma results checked");
}

}  // namespace

TEST_CASE("f32 fma gives std::fma's bits over hard triples; without a fused fma but with f64 it is wide on request") {
  for (const char* wide : {static_cast<const char*>(nullptr), "1"}) {
    const vt::ScopedEnv env("VYRE_VULKAN_WIDE_FMA", wide);
    INFO("VYRE_VULKAN_WIDE_FMA " << (wide ? wide : "unset"));
    check_hard_f32_triples(vt::vulkan(), wide != nullptr);
  }
}

TEST_CASE("a passed probe makes GLSL.std.450 Fma the fma, with seeded div/sqrt (VYRE_VULKAN_FMA_PROBE_TABLE=exact)") {
  // The test hook's table has exact products only, so every device passes it: this drives the
  // "probe passed" path on a device that does not fuse, with operands where fusing cannot show.
  const vt::ScopedEnv env("VYRE_VULKAN_FMA_PROBE_TABLE", "exact");
  const auto vk = vt::vulkan();
  for (Type t : {Type::F32, Type::F64}) {
    const std::string w = t == Type::F32 ? "f32" : "f64";
    INFO(w);
    const std::uint64_t source = vt::metric(vk, "fma_source_" + w);
    if (source == 1) {
      MESSAGE("fma " << w << " comes from VK_KHR_shader_fma on this device: no probe");
      continue;
    }
    if (vt::metric(vk, "fma_probe_" + w) == 0) {
      MESSAGE("fma " << w << ": the probe did not run (no f64 on this device)");
      continue;
    }
    CHECK(vt::metric(vk, "fma_probe_" + w) == 1);
    CHECK(source == 2);
    CHECK(vt::metric(vk, "native_fma_" + w) == 1);
    CHECK(vt::metric(vk, "seeded_div_sqrt_" + w) == 0);  // only over a promised fma (extension)
    // fma through GLSL.std.450 Fma on operands whose products are exact.
    const std::uint32_t n = 256;
    std::optional<vyre::host::Program> program;
    const vyre::Program ir = fma_program(t, n);
    program.emplace(vk.compile(ir));
    std::vector<ByteVector> inputs;
    if (t == Type::F32) {
      std::vector<float> a(n), x(n), y(n);
      for (std::uint32_t i = 0; i < n; ++i) {
        a[i] = static_cast<float>(static_cast<int>(i % 13) - 6);
        x[i] = std::ldexp(static_cast<float>(i % 7 + 1), static_cast<int>(i % 11) - 5);
        y[i] = static_cast<float>(i % 17) - 8.5f;
      }
      inputs = {vt::bytes_of(a), vt::bytes_of(x), vt::bytes_of(y)};
    } else {
      std::vector<double> a(n), x(n), y(n);
      for (std::uint32_t i = 0; i < n; ++i) {
        a[i] = static_cast<double>(static_cast<int>(i % 13) - 6);
        x[i] = std::ldexp(static_cast<double>(i % 7 + 1), static_cast<int>(i % 11) - 5);
        y[i] = static_cast<double>(i % 17) - 8.5;
      }
      inputs = {vt::bytes_of(a), vt::bytes_of(x), vt::bytes_of(y)};
    }
    const auto expected = vt::reference().dispatch(vt::reference().compile(ir), spans(inputs));
    CHECK(vk.dispatch(*program, spans(inputs)) == expected);
  }
}

namespace {

// q = a / d, s = sqrt(a), r = reciprocal(d) of `t` (F32 or F64).
vyre::Program div_sqrt_program(Type t, std::uint32_t n) {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto a = b.buffer("a", Access::Read, t);
  auto d = b.buffer("d", Access::Read, t);
  auto q = b.buffer("q", Access::Output, t, n);
  auto s = b.buffer("s", Access::Output, t, n);
  auto r = b.buffer("r", Access::Output, t, n);
  auto i = b.let("i", invocation_id(0));
  b.store(q, i, a[i] / d[i]);
  b.store(s, i, un(vyre::UnOp::Sqrt, a[i]));
  b.store(r, i, un(vyre::UnOp::Reciprocal, d[i]));
  return b.build();
}

// Random bit patterns (every class: the fallback), random values of moderate and extreme
// exponents (the fast path and its edges), and edge values.
template <class F, class U>
std::vector<ByteVector> div_sqrt_inputs(std::uint32_t n) {
  std::vector<F> a(n), d(n);
  std::uint64_t s = 0xD1B54A32D192ED03ull;
  auto next = [&] {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  };
  auto any = [&] { return std::bit_cast<F>(static_cast<U>(next())); };
  auto scaled = [&](int range) {
    const F m = static_cast<F>(1) + static_cast<F>(next() % 1000003) / static_cast<F>(1000003);
    return std::ldexp(m, static_cast<int>(next() % static_cast<std::uint64_t>(2 * range + 1)) - range);
  };
  const int max_exp = std::numeric_limits<F>::max_exponent - 2;
  const F edges[] = {0, -0.0, 1, -1, 2, 3, std::numeric_limits<F>::infinity(), -std::numeric_limits<F>::infinity(),
                     std::numeric_limits<F>::quiet_NaN(), std::numeric_limits<F>::denorm_min(),
                     std::numeric_limits<F>::min(), std::numeric_limits<F>::max(), static_cast<F>(0.1)};
  constexpr std::uint32_t kEdges = sizeof(edges) / sizeof(edges[0]);
  for (std::uint32_t i = 0; i < n; ++i) {
    switch (i % 4) {
      case 0: a[i] = any(); d[i] = any(); break;
      case 1: a[i] = scaled(30); d[i] = scaled(30); break;
      case 2: a[i] = scaled(max_exp); d[i] = scaled(max_exp); break;
      default: a[i] = edges[i % kEdges]; d[i] = edges[(i / kEdges) % kEdges]; break;
    }
  }
  return {vt::bytes_of(a), vt::bytes_of(d)};
}

}  // namespace

TEST_CASE("div, sqrt and reciprocal are bit-exact seeded (fma-corrected OpFDiv / InverseSqrt) and exact") {
  const std::uint32_t n = 4096;
  // Unset: seeded where the fma is exact by construction (extension; f32 wide); 0: never; 1: always
  // (over whatever fma there is).
  for (const char* choice : {static_cast<const char*>(nullptr), "0", "1"}) {
    const vt::ScopedEnv env("VYRE_VULKAN_SEEDED_DIV_SQRT", choice);
    const auto vk = vt::vulkan();
    REQUIRE(has_metric(vk, "seeded_div_sqrt_f32"));
    const std::uint64_t s32 = vt::metric(vk, "seeded_div_sqrt_f32"), s64 = vt::metric(vk, "seeded_div_sqrt_f64");
    const std::string how = choice == nullptr ? "unset" : choice;
    if (choice == nullptr) {  // seeded over VK_KHR_shader_fma (fma_source 1) and wide (3), not a probed fma
      const std::uint64_t source32 = vt::metric(vk, "fma_source_f32");
      CHECK(s32 == (source32 == 1 || source32 == 3 ? 1u : 0u));
      CHECK(s64 == (vt::metric(vk, "fma_source_f64") == 1 ? 1u : 0u));
      std::printf("vulkan device '%s': seeded div/sqrt (fma-corrected OpFDiv/InverseSqrt): f32 %s, f64 %s\n",
                  vk.device_profile().name, s32 ? "yes" : "no (exact integer algorithms)",
                  s64 ? "yes" : "no (exact integer algorithms)");
      std::fflush(stdout);
    } else {
      CHECK(s32 == (how == "1" ? 1u : 0u));
    }
    for (Type t : {Type::F32, Type::F64}) {
      INFO(vyre::type_name(t) << ", VYRE_VULKAN_SEEDED_DIV_SQRT " << how);
      const vyre::Program ir = div_sqrt_program(t, n);
      const auto inputs = t == Type::F32 ? div_sqrt_inputs<float, std::uint32_t>(n) : div_sqrt_inputs<double, std::uint64_t>(n);
      std::optional<vyre::host::Program> program;
      try {
        program.emplace(vk.compile(ir));
      } catch (const vyre::Error& e) {
        CHECK(e.code() == VYRE_ERR_UNSUPPORTED);  // no f64 or no 64-bit integers on this device
        MESSAGE("this device refuses f" << (t == Type::F32 ? "32" : "64") << " div/sqrt");
        continue;
      }
      const auto expected = vt::reference().dispatch(vt::reference().compile(ir), spans(inputs));
      const auto got = vk.dispatch(*program, spans(inputs));
      REQUIRE(got.size() == expected.size());
      for (std::size_t o = 0; o < got.size(); ++o) {
        INFO("output " << "qsr"[o]);
        CHECK(got[o] == expected[o]);
      }
    }
  }
}

TEST_CASE("a malformed VYRE_VULKAN_SEEDED_DIV_SQRT is refused at create") {
  const vt::ScopedEnv env("VYRE_VULKAN_SEEDED_DIV_SQRT", "yes");
  try {
    vt::vulkan();
    FAIL("create accepted VYRE_VULKAN_SEEDED_DIV_SQRT=yes");
  } catch (const vyre::Error& e) {
    CHECK(e.code() == VYRE_ERR_INVALID_ARGUMENT);
    CHECK(std::string(e.what()).find("Fix:") != std::string::npos);
  }
}
