#include "fake_kernels.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

namespace vyre::cudatest {
namespace {

std::mutex g_kernel_mutex;
Kernel g_kernel = Kernel::None;
std::uint32_t g_rotate_n = 0;
std::uint64_t g_barrier_errors = 0;

std::uint32_t* words_at(std::uint64_t address) { return reinterpret_cast<std::uint32_t*>(address); }

// The elementwise entry (codegen/elementwise.hpp) runs 4 consecutive invocations per thread.
std::uint64_t invocations(const fake_cuda_launch& l) {
  const std::uint64_t per_thread = std::string(l.entry) == "vyre_elementwise" ? 4 : 1;
  return std::uint64_t{l.grid[0]} * l.grid[1] * l.grid[2] * l.block[0] * l.block[1] * l.block[2] * per_thread;
}

bool runs(const fake_cuda_launch& l, std::uint64_t n_index, std::uint64_t tail_index, std::uint64_t g) {
  return !(l.params[tail_index] != 0 && g >= l.params[n_index]);
}

void rotate(const fake_cuda_launch& l, std::uint64_t total) {  // x, t, |x|, |t|, N, tail [, barrier]
  const auto* p = l.params;
  const std::uint32_t n = g_rotate_n;
  const bool whole = std::string(l.entry) == "vyre_main";
  if (whole) {
    if (l.param_count != 7 || p[6] == 0 || *reinterpret_cast<const std::uint64_t*>(p[6]) != 0) ++g_barrier_errors;
  }
  const bool phase0 = whole || std::string(l.entry) == "vyre_phase_0";
  const bool phase1 = whole || std::string(l.entry) == "vyre_phase_1";
  if (phase0) {
    for (std::uint64_t g = 0; g < std::min<std::uint64_t>(total, n); ++g) words_at(p[1])[g] = words_at(p[0])[g] + 1;
  }
  if (phase1) {
    for (std::uint64_t g = 0; g < std::min<std::uint64_t>(total, n); ++g) words_at(p[0])[g] = words_at(p[1])[(g + 1) % n];
  }
  if (whole) *reinterpret_cast<std::uint64_t*>(p[6]) = 0xdead;  // the barrier state is dirty after use
}

void emulate(const fake_cuda_launch* launch, void*) {
  const fake_cuda_launch& l = *launch;
  const std::uint64_t total = invocations(l);
  const auto* p = l.params;
  switch (g_kernel) {
    case Kernel::Increment:  // x, |x|, N, tail
      for (std::uint64_t g = 0; g < total; ++g) {
        if (runs(l, 2, 3, g) && g < p[1]) words_at(p[0])[g] += 1;
      }
      break;
    case Kernel::Mix:  // x, y, |x|, |y|, N, tail: x = x * 3 + y
      for (std::uint64_t g = 0; g < total; ++g) {
        if (runs(l, 4, 5, g) && g < p[2]) words_at(p[0])[g] = words_at(p[0])[g] * 3 + (g < p[3] ? words_at(p[1])[g] : 0);
      }
      break;
    case Kernel::Scramble:  // y, x, |y|, |x|, N, tail: y ^= x >> 3
      for (std::uint64_t g = 0; g < total; ++g) {
        if (runs(l, 4, 5, g) && g < p[2]) words_at(p[0])[g] ^= (g < p[3] ? words_at(p[1])[g] : 0) >> 3;
      }
      break;
    case Kernel::Affine:  // a, out, |a|, |out|, N, tail: out = a * 3 + i for i < |a|
      for (std::uint64_t g = 0; g < total; ++g) {
        if (runs(l, 4, 5, g) && g < p[2] && g < p[3]) words_at(p[1])[g] = words_at(p[0])[g] * 3 + static_cast<std::uint32_t>(g);
      }
      break;
    case Kernel::Xor:  // a, b, out, |a|, |b|, |out|, N, tail: out = a ^ b
      for (std::uint64_t g = 0; g < total; ++g) {
        if (runs(l, 6, 7, g) && g < p[5]) words_at(p[2])[g] = (g < p[3] ? words_at(p[0])[g] : 0) ^ (g < p[4] ? words_at(p[1])[g] : 0);
      }
      break;
    case Kernel::Rotate:
      rotate(l, total);
      break;
    case Kernel::None:
      break;
  }
}

}  // namespace

bool use_fake_driver(const std::string& cache_home) {
  setenv("VYRE_CUDA_DRIVER_LIBRARY", FAKE_CUDA_LIBRARY, 1);
  for (const char* name : {"VYRE_CUDA_FAIL", "VYRE_CUDA_FORCE_SPLIT_GRID_SYNC", "VYRE_CUDA_DISABLE_GRAPHS",
                           "VYRE_CUDA_DEVICE_ORDINAL", "CUDA_CACHE_PATH", "VYRE_CUDA_DISABLE_OPTIMIZER"}) {
    unsetenv(name);
  }
  const std::string cache_dir = std::string(VYRE_BINARY_DIR) + "/" + cache_home;
  std::filesystem::remove_all(cache_dir);
  setenv("XDG_CACHE_HOME", cache_dir.c_str(), 1);
  return true;
}

std::string live_difference(const fake_cuda_stats& baseline, const fake_cuda_stats& now) {
  std::ostringstream text;
  auto compare = [&](const char* what, std::uint64_t before, std::uint64_t after) {
    if (before != after) text << what << " " << before << " -> " << after << "; ";
  };
  compare("device allocations", baseline.live_device_allocations, now.live_device_allocations);
  compare("pinned allocations", baseline.live_host_allocations, now.live_host_allocations);
  compare("streams", baseline.live_streams, now.live_streams);
  compare("events", baseline.live_events, now.live_events);
  compare("modules", baseline.live_modules, now.live_modules);
  compare("graphs", baseline.live_graphs, now.live_graphs);
  compare("executable graphs", baseline.live_execs, now.live_execs);
  return text.str();
}

FakeScope::FakeScope(Kernel kernel, std::uint32_t rotate_n) : lock_(g_kernel_mutex) {
  g_kernel = kernel;
  g_rotate_n = rotate_n;
  g_barrier_errors = 0;
  fake_cuda_set_kernel(&emulate, nullptr);
  fake_cuda_reset_counters();
}

FakeScope::~FakeScope() {
  const fake_cuda_stats s = stats();
  INFO("last violation: " << s.last_violation);
  CHECK(s.violations == 0);
  CHECK(g_barrier_errors == 0);
  g_kernel = Kernel::None;
}

fake_cuda_stats FakeScope::stats() {
  fake_cuda_stats s{};
  fake_cuda_get_stats(&s);
  return s;
}

}  // namespace vyre::cudatest
