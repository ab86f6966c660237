// Every program in examples/ runs on the reference and on every other backend that can run here
// (cuda on a GPU, vulkan on any Vulkan device: lavapipe in CI) and produces the values this test
// computes independently. A backend whose instance refuses a program (VYRE_ERR_UNSUPPORTED: its
// device lacks a feature, e.g. 32-wide subgroups) skips it with a message.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

#include "support/build_plugins.hpp"
#include "vyre/backend.hpp"
#include "vyre/error.hpp"
#include "vyre/json.hpp"
#include "vyre/registry.hpp"

namespace {

namespace fs = std::filesystem;
using vyre::host::Bytes;
using vyre::host::ByteVector;

vyre::Program example(const char* name) {
  return vyre::load_program_file(fs::path(VYRE_SOURCE_DIR) / "examples" / name);
}

vyre::Registry& registry() { return vyre::test::build_plugin_registry(); }

// The backends to check here: the reference always, every other one that can run on this machine.
std::vector<vyre::host::Backend> backends() {
  std::vector<vyre::host::Backend> out{registry().backend("reference_cpu")};
  for (const vyre::PluginInfo& plugin : registry().plugins()) {
    if (plugin.id == "reference_cpu") continue;
    if (auto why_not = registry().probe(plugin.id); !why_not)
      out.push_back(registry().backend(plugin.id));
    else
      MESSAGE(plugin.id << " not checked here: " << why_not->substr(0, 120));
  }
  return out;
}

template <class T>
std::vector<T> random_vector(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(rng());
  return v;
}

template <class T>
std::vector<T> as(const ByteVector& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

template <class T>
Bytes bytes_of(const std::vector<T>& v) {
  return std::as_bytes(std::span(v));
}

// The outputs, or nothing when a backend other than the reference refuses the program.
std::optional<std::vector<ByteVector>> run(vyre::host::Backend& backend, const vyre::Program& program,
                                           std::initializer_list<Bytes> inputs) {
  vyre::host::Program compiled;
  try {
    compiled = backend.compile(program);
  } catch (const vyre::Error& e) {
    if (e.code() != VYRE_ERR_UNSUPPORTED || backend.label() == "reference_cpu") throw;
    MESSAGE(backend.label() << " refuses the program here: " << std::string(e.what()).substr(0, 160));
    return std::nullopt;
  }
  return backend.dispatch(compiled, std::vector<Bytes>(inputs));
}

}  // namespace

TEST_CASE("xor: out = a ^ b") {
  const auto a = random_vector<std::uint32_t>(1024, 1), b = random_vector<std::uint32_t>(1024, 2);
  std::vector<std::uint32_t> expected(1024);
  for (std::size_t i = 0; i < 1024; ++i) expected[i] = a[i] ^ b[i];
  for (auto& backend : backends()) {
    CAPTURE(backend.label());
    if (auto out = run(backend, example("xor.json"), {bytes_of(a), bytes_of(b)}))
      CHECK(as<std::uint32_t>((*out)[0]) == expected);
  }
}

TEST_CASE("saxpy: y = fma(alpha, x, y), one rounding") {
  const std::vector<float> alpha{1.7f};
  std::vector<float> x(1024), y(1024);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-100.f, 100.f);
  for (std::size_t i = 0; i < 1024; ++i) x[i] = dist(rng), y[i] = dist(rng);
  std::vector<std::uint32_t> expected(1024);
  for (std::size_t i = 0; i < 1024; ++i) {
    const float r = std::fmaf(alpha[0], x[i], y[i]);
    std::memcpy(&expected[i], &r, 4);
  }
  for (auto& backend : backends()) {
    CAPTURE(backend.label());
    if (auto out = run(backend, example("saxpy.json"), {bytes_of(alpha), bytes_of(x), bytes_of(y)}))
      CHECK(as<std::uint32_t>((*out)[0]) == expected);
  }
}

TEST_CASE("histogram: atomics count values by value % 16") {
  const auto values = random_vector<std::uint32_t>(4096, 4);
  std::vector<std::uint32_t> expected(16, 0);
  for (std::uint32_t v : values) ++expected[v % 16];
  for (auto& backend : backends()) {
    CAPTURE(backend.label());
    if (auto out = run(backend, example("histogram.json"), {bytes_of(values)}))
      CHECK(as<std::uint32_t>((*out)[0]) == expected);
  }
}

TEST_CASE("workgroup and subgroup reductions sum 4096 words (wrapping)") {
  const auto data = random_vector<std::uint32_t>(4096, 5);
  const std::uint32_t sum = std::accumulate(data.begin(), data.end(), std::uint32_t{0});
  for (auto& backend : backends()) {
    CAPTURE(backend.label());
    if (auto out = run(backend, example("workgroup_reduce.json"), {bytes_of(data)}))
      CHECK(as<std::uint32_t>((*out)[0]) == std::vector<std::uint32_t>{sum});
    if (auto out = run(backend, example("subgroup_reduce.json"), {bytes_of(data)}))
      CHECK(as<std::uint32_t>((*out)[0]) == std::vector<std::uint32_t>{sum});
  }
}

TEST_CASE("prefix sum across workgroups with grid_sync") {
  const auto data = random_vector<std::uint32_t>(1024, 6);
  std::vector<std::uint32_t> prefix(1024), blocks(16, 0);
  std::inclusive_scan(data.begin(), data.end(), prefix.begin());
  for (std::size_t i = 0; i < 1024; ++i) blocks[i / 64] += data[i];
  for (auto& backend : backends()) {
    CAPTURE(backend.label());
    if (auto out = run(backend, example("prefix_sum.json"), {bytes_of(data)})) {
      CHECK(as<std::uint32_t>((*out)[0]) == prefix);
      CHECK(as<std::uint32_t>((*out)[1]) == blocks);
    }
  }
}

TEST_CASE("f16 storage: x = f16(fma(x, 0.5, 0.25)) rounded to nearest even") {
  std::vector<_Float16> x(1024);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-70000.f, 70000.f);  // includes f16 overflow
  for (auto& v : x) v = static_cast<_Float16>(dist(rng) / static_cast<float>(1 + rng() % 4096));
  std::vector<std::uint16_t> expected(1024);
  for (std::size_t i = 0; i < 1024; ++i) {
    const _Float16 r = static_cast<_Float16>(std::fmaf(static_cast<float>(x[i]), 0.5f, 0.25f));
    std::memcpy(&expected[i], &r, 2);
  }
  for (auto& backend : backends()) {
    CAPTURE(backend.label());
    if (auto out = run(backend, example("half_precision.json"), {bytes_of(x)}))
      CHECK(as<std::uint16_t>((*out)[0]) == expected);
  }
}

TEST_CASE("every example file is covered by a test above") {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(fs::path(VYRE_SOURCE_DIR) / "examples"))
    if (entry.path().extension() == ".json") names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"half_precision.json", "histogram.json", "prefix_sum.json",
                                          "saxpy.json", "subgroup_reduce.json",
                                          "workgroup_reduce.json", "xor.json"});
}
