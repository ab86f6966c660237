// Fault injection on the fake driver (CPU, CI): the test build's fault plugin
// (tests/cuda/fault_plugin/libvyre_cuda.so) fails chosen driver calls through VYRE_CUDA_FAIL. The
// rules themselves (list, malformed, versioned names, n-th call, every call from the n-th), then
// the table of every hookable function x every representative operation (fault_table.hpp), with
// the fake's live-object counters as the leak check and its misuse counters watching every row.
#include <doctest/doctest.h>

#include <iostream>
#include <memory>

#include "fake_driver/fake_cuda.h"
#include "fake_kernels.hpp"
#include "fault_table.hpp"
#include "gpu_support.hpp"

namespace {

using namespace vyre::cudatest;  // test file: helpers of this suite

const bool kFakeDriver = use_fake_driver("fake_cuda_fault_cache_home");

vyre::host::Backend open_fault() { return open_plugin_file(fault_plugin_path()); }

// Held for the whole run: call counters and injections are read through it.
const vyre::host::Backend& observer() {
  static const vyre::host::Backend backend = open_fault();
  return backend;
}

}  // namespace

TEST_CASE("VYRE_CUDA_FAIL lists the hookable functions, rejects malformed rules, and accepts versioned names") {
  FakeScope scope(Kernel::None);
  (void)observer();
  {
    ScopedEnv list("VYRE_CUDA_FAIL", "list");
    const std::string message = expect_error([] { open_fault(); }, VYRE_ERR_INVALID_ARGUMENT);
    for (const char* name : {"cuMemAlloc", "cuMemHostAlloc", "cuModuleLoadDataEx", "cuLaunchKernel",
                             "cuLaunchCooperativeKernel", "cuGraphLaunch", "cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync",
                             "cuEventRecord", "cuEventSynchronize", "cuEventCreate", "cuStreamCreate",
                             "cuGraphInstantiateWithFlags", "cuStreamBeginCapture"}) {
      CHECK(message.find(name) != std::string::npos);
    }
  }
  for (const char* bad : {"cuNotAFunction:1", "cuMemAlloc", "cuMemAlloc:0", "cuMemAlloc:x", "cuMemFree:1",
                          "cuMemAlloc:1:-3"}) {
    CAPTURE(bad);
    ScopedEnv malformed("VYRE_CUDA_FAIL", bad);
    expect_error([] { open_fault(); }, VYRE_ERR_INVALID_ARGUMENT);
  }
  const auto backend = open_fault();
  {
    ScopedEnv fail("VYRE_CUDA_FAIL", "cuMemAlloc_v2:1+");
    const std::string message = expect_error([&] { backend.alloc(4096); }, VYRE_ERR_OUT_OF_MEMORY);
    CHECK(message.find("cuMemAlloc") != std::string::npos);
  }
  CHECK(backend.alloc(4096).byte_len() == 4096);  // disarmed: works again
  {
    // The second call of cuEventCreate fails, with the CUresult given (700: a device error). A new
    // instance has no idle events: each resident allocation creates one.
    ScopedEnv fail("VYRE_CUDA_FAIL", "cuEventCreate:2:700");
    const auto fresh = open_fault();
    const auto before = metric(fresh, "faults_injected");
    const auto first = fresh.alloc(256);
    const std::string message = expect_error([&] { fresh.alloc(256); }, VYRE_ERR_DEVICE);
    CHECK(message.find("cuEventCreate") != std::string::npos);
    CHECK(metric(fresh, "faults_injected") == before + 1);
  }
  CHECK(metric(backend, "driver_calls.cuEventCreate") >= 2);
}

TEST_CASE("every hookable driver function x every representative operation: a clear error or a correct result") {
  (void)observer();
  const fake_cuda_stats baseline = FakeScope::stats();
  std::unique_ptr<FakeScope> scope;
  FaultTableHooks hooks;
  hooks.open = open_fault;
  hooks.begin_op = [&](const FaultOp& op) {
    scope.reset();
    scope = std::make_unique<FakeScope>(op.kernel(), op.rotate_n());
  };
  hooks.leaks = [&] {
    const fake_cuda_stats now = FakeScope::stats();
    std::string leaked = live_difference(baseline, now);
    if (now.violations != 0) {
      leaked += std::string("driver misuse: ") + now.last_violation;
      fake_cuda_reset_counters();
    }
    return leaked;
  };
  const auto ops = representative_fault_ops();
  const FaultTableReport report = run_fault_table(ops, observer(), hooks);
  scope.reset();
  std::cout << "fault table: " << report.rows << " rows, " << report.errors << " errors, " << report.absorbed
            << " absorbed, " << report.not_fired << " not fired, " << report.failures.size() << " failures\n";
  for (const auto& failure : report.failures) std::cout << "FAILED ROW: " << failure << "\n";
  std::cout << std::flush;
  CHECK(report.failures.empty());
  CHECK(report.rows >= 300);
  CHECK(report.not_fired == 0);  // the fake is deterministic: every counted call comes again
  for (const std::string& function : hookable_functions(observer())) {
    CAPTURE(function);
    CHECK(report.fired.count(function) == 1);  // every hookable function is exercised
  }
  CHECK(live_difference(baseline, FakeScope::stats()).empty());
}

namespace {

struct PerDispatch {
  double calls = 0;  // hookable driver calls (every call a dispatch makes is hookable)
  CallCounts by_function;
  double kernels = 0, copies = 0, memsets = 0;  // device operations the fake executed
};

template <class Dispatch>
PerDispatch measure(const vyre::host::Backend& backend, int times, const Dispatch& dispatch) {
  const CallCounts first = driver_calls(backend);
  const CallCounts reading = calls_between(first, driver_calls(backend), {});
  const fake_cuda_stats stats_before = FakeScope::stats();
  const CallCounts before = driver_calls(backend);
  for (int k = 0; k < times; ++k) dispatch();
  const CallCounts made = calls_between(before, driver_calls(backend), reading);
  const fake_cuda_stats stats_after = FakeScope::stats();
  PerDispatch per;
  for (const auto& [function, count] : made) {
    per.calls += static_cast<double>(count) / times;
    per.by_function[function] = count;
  }
  per.kernels = static_cast<double>(stats_after.kernel_launches - stats_before.kernel_launches) / times;
  per.copies = static_cast<double>(stats_after.device_copies - stats_before.device_copies) / times;
  per.memsets = static_cast<double>(stats_after.device_memsets - stats_before.device_memsets) / times;
  return per;
}

void print(const char* what, const PerDispatch& per, int times) {
  std::cout << "  " << what << ": " << per.calls << " driver calls (";
  for (const auto& [function, count] : per.by_function) std::cout << function << " " << count / times << " ";
  std::cout << "), device operations: " << per.kernels << " kernels, " << per.copies << " copies, " << per.memsets
            << " memsets\n";
}

}  // namespace

TEST_CASE("a compiled pipeline costs no more driver calls or device operations per dispatch than a plain dispatch") {
  struct Case {
    const char* name;
    Kernel kernel;
    vyre::Program program;
    std::vector<std::vector<std::uint32_t>> inputs;
  };
  const std::vector<Case> cases{
      {"P2: xor of 2x1024 u32 (mapped)", Kernel::Xor, xor_program(1024), {random_words(1024, 1), random_words(1024, 2)}},
      {"affine, 4096 (image)", Kernel::Affine, affine_program(4096), {random_words(3000, 3)}},
      {"affine, 300000 (copies)", Kernel::Affine, affine_program(300000), {random_words(300000, 4)}}};
  constexpr int kTimes = 10;
  for (const Case& c : cases) {
    CAPTURE(c.name);
    FakeScope scope(c.kernel);
    const auto backend = open_fault();
    const auto compiled = backend.compile(c.program);
    const auto pipeline = backend.pipeline(compiled);
    std::vector<vyre::host::Bytes> inputs;
    for (const auto& input : c.inputs) inputs.push_back(bytes(input));
    for (int k = 0; k < 3; ++k) {  // warm: pools, the repeat graph, the pipeline's shape
      CHECK(backend.dispatch(compiled, inputs) == pipeline.dispatch(inputs));
    }
    const PerDispatch plain = measure(backend, kTimes, [&] { backend.dispatch(compiled, inputs); });
    const PerDispatch piped = measure(backend, kTimes, [&] { pipeline.dispatch(inputs); });
    std::cout << c.name << ", per dispatch:\n";
    print("plain dispatch", plain, kTimes);
    print("pipeline", piped, kTimes);
    CHECK(piped.calls <= plain.calls);
    CHECK(piped.kernels == plain.kernels);
    CHECK(piped.copies <= plain.copies);
    CHECK(piped.memsets <= plain.memsets);
  }
}
