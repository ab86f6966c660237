// The CUDA runtime's pure logic, without a device: size classes and free lists, download range
// merging, staging layouts, every launch check, the kernel parameter table, device selection, the
// JIT cache directory, driver-loading failures, telemetry, and the VYRE_CUDA_FAIL rules.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>

#include "runtime/byte_ranges.hpp"
#include "runtime/device_info.hpp"
#include "runtime/device_select.hpp"
#include "runtime/driver.hpp"
#include "runtime/fault/spec.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/jit_cache.hpp"
#include "runtime/kernel_args.hpp"
#include "runtime/launch_checks.hpp"
#include "runtime/size_class.hpp"
#include "runtime/telemetry.hpp"
#include "vyre/error.hpp"

namespace cu = vyre::cuda;
namespace drv = vyre::cuda::drv;

namespace {

// Run `f`, expecting a vyre::Error with `code` whose message contains `needle` and a Fix.
template <class F>
void expect_error(F&& f, vyre_status code, const std::string& needle = "") {
  try {
    f();
    FAIL("expected vyre::Error " << vyre::status_name(code));
  } catch (const vyre::Error& error) {
    const std::string message = error.what();
    INFO("message: " << message);
    CHECK(error.code() == code);
    CHECK(message.find("Fix: ") != std::string::npos);
    if (!needle.empty()) CHECK(message.find(needle) != std::string::npos);
  }
}

cu::DeviceInfo h100() {
  cu::DeviceInfo info;
  info.name = "test H100";
  info.compute_major = 9;
  info.multiprocessors = 132;
  info.max_threads_per_block = 1024;
  info.max_block = {1024, 1024, 64};
  info.max_grid = {2147483647u, 65535u, 65535u};
  info.shared_memory_per_block = 48 * 1024;
  info.memory_clock_khz = 2619000;
  info.memory_bus_width_bits = 5120;
  info.cooperative_launch = true;
  return info;
}

// Distinct non-null fake handles: validation never dereferences them.
drv::CUfunction fake_function() { return reinterpret_cast<drv::CUfunction>(std::uintptr_t{0x1000}); }
drv::CUstream fake_stream() { return reinterpret_cast<drv::CUstream>(std::uintptr_t{0x2000}); }

vyre::cuda::KernelEntry entry_with(std::vector<vyre::cuda::KernelParam> params) {
  vyre::cuda::KernelEntry entry;
  entry.name = "vyre_test";
  entry.params = std::move(params);
  return entry;
}

}  // namespace

TEST_CASE("size classes: at least 256 bytes, four per power of two, at most a quarter wasted") {
  CHECK(cu::size_class(0) == 256);
  CHECK(cu::size_class(1) == 256);
  CHECK(cu::size_class(256) == 256);
  CHECK(cu::size_class(257) == 320);
  CHECK(cu::size_class(512) == 512);
  CHECK(cu::size_class(513) == 640);
  CHECK(cu::size_class(1000) == 1024);
  CHECK(cu::size_class(1025) == 1280);
  CHECK(cu::size_class(3 << 20) == (3 << 20));
  std::uint64_t previous = 0;
  for (std::uint64_t bytes = 1; bytes < (1u << 20); bytes = bytes * 9 / 8 + 1) {
    const std::uint64_t size = cu::size_class(bytes);
    INFO("bytes " << bytes << " -> " << size);
    CHECK(size >= bytes);
    CHECK(size >= previous);
    CHECK(cu::size_class(size) == size);
    if (bytes > 256) CHECK(size - bytes < size / 4 + 1);
    previous = size;
  }
}

TEST_CASE("the block cache keeps idle blocks by class under a cap") {
  cu::BlockCache cache(1024);
  CHECK(!cache.take(256).has_value());
  CHECK(cache.put(0x1000, 256));
  CHECK(cache.put(0x2000, 512));
  CHECK(cache.idle_bytes() == 768);
  CHECK(!cache.put(0x3000, 512));  // would exceed the cap: the caller frees it
  CHECK(cache.idle_bytes() == 768);
  CHECK(!cache.take(320).has_value());
  CHECK(cache.take(512) == std::optional<std::uint64_t>(0x2000));
  CHECK(cache.idle_blocks() == 1);
  CHECK(cache.put(0x4000, 256));
  auto drained = cache.drain();
  CHECK(drained.size() == 2);
  CHECK(cache.idle_bytes() == 0);
  CHECK(cache.idle_blocks() == 0);
}

TEST_CASE("download ranges: overlapping and adjacent ranges merge, empty ones copy nothing") {
  const std::vector<cu::ByteSpan> ranges{{100, 20}, {0, 8}, {8, 8}, {40, 0}, {110, 30}, {60, 4}};
  const cu::RangePlan plan = cu::plan_ranges(ranges);
  REQUIRE(plan.copies.size() == 3);
  CHECK(plan.copies[0] == cu::ByteSpan{0, 16});
  CHECK(plan.copies[1] == cu::ByteSpan{60, 4});
  CHECK(plan.copies[2] == cu::ByteSpan{100, 40});
  CHECK(plan.copy_of == std::vector<std::size_t>{2, 0, 0, cu::kNoCopy, 2, 1});
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    if (plan.copy_of[i] == cu::kNoCopy) continue;
    const cu::ByteSpan& copy = plan.copies[plan.copy_of[i]];
    CHECK(copy.offset <= ranges[i].offset);
    CHECK(copy.end() >= ranges[i].end());
  }
  CHECK(cu::plan_ranges({}).copies.empty());
}

TEST_CASE("staging layouts align every block and report the span") {
  const std::vector<std::uint64_t> sizes{10, 0, 256, 1};
  std::uint64_t total = 0;
  const auto offsets = cu::pack_offsets(sizes, 256, &total);
  CHECK(offsets == std::vector<std::uint64_t>{0, 256, 256, 512});
  CHECK(total == 768);
  const std::vector<std::uint64_t> huge{UINT64_MAX - 10, 100};
  expect_error([&] { cu::pack_offsets(huge, 256, &total); }, VYRE_ERR_LIMIT, "overflow");
}

TEST_CASE("launch geometry is checked against every device limit") {
  const cu::DeviceInfo device = h100();
  cu::check_geometry(device, "k", {1000, 65535, 65535}, {1024, 1, 1}, 48 * 1024, 1024);
  expect_error([&] { cu::check_geometry(device, "k", {1, 1, 1}, {1025, 1, 1}, 0, 0); }, VYRE_ERR_LIMIT, "1025");
  expect_error([&] { cu::check_geometry(device, "k", {1, 1, 1}, {1, 1, 65}, 0, 0); }, VYRE_ERR_LIMIT, "axis z");
  expect_error([&] { cu::check_geometry(device, "k", {1, 1, 1}, {32, 32, 2}, 0, 0); }, VYRE_ERR_LIMIT, "2048 invocations");
  expect_error([&] { cu::check_geometry(device, "k", {1, 65536, 1}, {1, 1, 1}, 0, 0); }, VYRE_ERR_LIMIT, "axis y");
  expect_error([&] { cu::check_geometry(device, "k", {0, 1, 1}, {1, 1, 1}, 0, 0); }, VYRE_ERR_INVALID_ARGUMENT, "zero");
  expect_error([&] { cu::check_geometry(device, "k", {1, 1, 1}, {64, 1, 1}, 48 * 1024 + 1, 0); }, VYRE_ERR_LIMIT,
               "workgroup memory");
  expect_error([&] { cu::check_geometry(device, "k", {1, 1, 1}, {512, 1, 1}, 0, 256); }, VYRE_ERR_LIMIT, "register");
}

TEST_CASE("dimension products and residency accounting never overflow silently") {
  CHECK(cu::dims_product("grid", {2, 3, 4}) == 24);
  CHECK(cu::dims_product("grid", {UINT32_MAX, UINT32_MAX, 1}) == std::uint64_t{UINT32_MAX} * UINT32_MAX);
  expect_error([] { cu::dims_product("grid", {UINT32_MAX, UINT32_MAX, UINT32_MAX}); }, VYRE_ERR_LIMIT, "overflow");
  CHECK(cu::cooperative_capacity(4, 132) == 528);
  CHECK(cu::cooperative_capacity(0, 132) == 0);
  expect_error([] { cu::cooperative_capacity(-1, 132); }, VYRE_ERR_INTERNAL);
  cu::check_cooperative_residency("k", {528, 1, 1}, {256, 1, 1}, 528);
  cu::check_cooperative_residency("k", {24, 22, 1}, {256, 1, 1}, 528);
  expect_error([] { cu::check_cooperative_residency("k", {529, 1, 1}, {256, 1, 1}, 528); }, VYRE_ERR_LIMIT, "529");
  expect_error([] { cu::check_cooperative_residency("k", {1, 1, 1}, {256, 1, 1}, 0); }, VYRE_ERR_LIMIT);
}

TEST_CASE("a launch with a null function, stream or argument slot fails before the driver call") {
  const cu::DeviceInfo device = h100();
  std::uint64_t values[3] = {1, 2, 3};
  void* slots[3] = {&values[0], &values[1], &values[2]};
  cu::LaunchRequest request;
  request.kernel = "vyre_test";
  request.function = fake_function();
  request.stream = fake_stream();
  request.args = slots;
  request.arg_count = 3;
  request.grid = {4, 1, 1};
  request.block = {128, 1, 1};
  cu::validate_launch(device, request);

  cu::LaunchRequest no_function = request;
  no_function.function = nullptr;
  expect_error([&] { cu::validate_launch(device, no_function); }, VYRE_ERR_INTERNAL, "null CUfunction");
  cu::LaunchRequest no_stream = request;
  no_stream.stream = nullptr;
  expect_error([&] { cu::validate_launch(device, no_stream); }, VYRE_ERR_INTERNAL, "null stream");
  cu::LaunchRequest no_args = request;
  no_args.arg_count = 0;
  expect_error([&] { cu::validate_launch(device, no_args); }, VYRE_ERR_INTERNAL, "empty argument table");
  slots[2] = nullptr;
  expect_error([&] { cu::validate_launch(device, request); }, VYRE_ERR_INTERNAL, "index 2");
  slots[2] = &values[2];

  cu::LaunchRequest cooperative = request;
  cooperative.cooperative = true;
  cooperative.resident_capacity = 4;
  cu::validate_launch(device, cooperative);
  cooperative.resident_capacity = 3;
  expect_error([&] { cu::validate_launch(device, cooperative); }, VYRE_ERR_LIMIT, "co-resident");
  cu::DeviceInfo no_coop = device;
  no_coop.cooperative_launch = false;
  cooperative.resident_capacity = 4;
  expect_error([&] { cu::validate_launch(no_coop, cooperative); }, VYRE_ERR_LIMIT, "cooperative");
}

TEST_CASE("kernel arguments follow the entry's parameter layout, one slot each") {
  using cu::ParamKind;
  const auto entry = entry_with({{ParamKind::BufferPointer, 0, 8},
                                 {ParamKind::BufferPointer, 2, 8},
                                 {ParamKind::ElementCount, 0, 4},
                                 {ParamKind::ElementCount, 2, 4},
                                 {ParamKind::DispatchN, 0, 4},
                                 {ParamKind::TailGuard, 0, 4},
                                 {ParamKind::GridBarrier, 0, 8}});
  cu::LaunchBindings bindings;
  bindings.pointers = {0x7000000000ull, 0, 0x7000001000ull};
  bindings.elements = {16, 64, 1000};
  bindings.n = 1000;
  bindings.tail_guard = true;
  bindings.grid_barrier = 0x7000002000ull;
  cu::KernelArgs args(entry, bindings);
  CHECK(std::vector<std::uint64_t>(args.values().begin(), args.values().end()) ==
        std::vector<std::uint64_t>{0x7000000000ull, 0x7000001000ull, 16, 1000, 1000, 1, 0x7000002000ull});
  REQUIRE(args.size() == 7);
  for (std::size_t i = 0; i < args.size(); ++i) {
    CHECK(args.slots()[i] == &args.values()[i]);
  }
  CHECK(*static_cast<std::uint32_t*>(args.slots()[3]) == 1000u);  // a u32 reads the low bytes

  cu::KernelArgs copy = args;
  for (std::size_t i = 0; i < copy.size(); ++i) CHECK(copy.slots()[i] == &copy.values()[i]);
  cu::KernelArgs moved = std::move(copy);
  for (std::size_t i = 0; i < moved.size(); ++i) CHECK(moved.slots()[i] == &moved.values()[i]);

  // More parameters than fit inline (14 buffers: 30 parameters) live on the heap, same contract.
  std::vector<cu::KernelParam> wide_params;
  cu::LaunchBindings wide;
  for (std::uint32_t b = 0; b < 14; ++b) {
    wide_params.push_back({ParamKind::BufferPointer, b, 8});
    wide.pointers.push_back(0x7100000000ull + b * 256);
    wide.elements.push_back(b + 1);
  }
  for (std::uint32_t b = 0; b < 14; ++b) wide_params.push_back({ParamKind::ElementCount, b, 4});
  wide_params.push_back({ParamKind::DispatchN, 0, 4});
  wide_params.push_back({ParamKind::TailGuard, 0, 4});
  wide.n = 7;
  cu::KernelArgs wide_args(entry_with(wide_params), wide);
  REQUIRE(wide_args.size() == 30);
  CHECK(wide_args.values()[13] == 0x7100000000ull + 13 * 256);
  CHECK(wide_args.values()[27] == 14);
  cu::KernelArgs wide_copy = wide_args;
  cu::KernelArgs wide_moved = std::move(wide_copy);
  for (std::size_t i = 0; i < 30; ++i) {
    CHECK(wide_args.slots()[i] == &wide_args.values()[i]);
    CHECK(wide_moved.slots()[i] == &wide_moved.values()[i]);
    CHECK(wide_moved.values()[i] == wide_args.values()[i]);
  }

  cu::LaunchBindings too_many = bindings;
  too_many.elements[2] = std::uint64_t{1} << 32;
  expect_error([&] { cu::KernelArgs(entry, too_many); }, VYRE_ERR_LIMIT, "buffer 2");
  cu::LaunchBindings big_n = bindings;
  big_n.n = std::uint64_t{1} << 32;
  expect_error([&] { cu::KernelArgs(entry, big_n); }, VYRE_ERR_LIMIT, "N");
  cu::LaunchBindings no_barrier = bindings;
  no_barrier.grid_barrier = 0;
  expect_error([&] { cu::KernelArgs(entry, no_barrier); }, VYRE_ERR_INTERNAL, "grid-barrier");
  const auto stray = entry_with({{ParamKind::BufferPointer, 5, 8}});
  expect_error([&] { cu::KernelArgs(stray, bindings); }, VYRE_ERR_INTERNAL, "buffer 5");

  // A buffer declared with a count is launched with exactly that count (the optimizer proved its
  // accesses against it); a runtime-sized one (declared_count 0) takes any count.
  const auto declared = entry_with({{ParamKind::ElementCount, 0, 4, 16}, {ParamKind::ElementCount, 2, 4, 0}});
  cu::KernelArgs fits(declared, bindings);
  CHECK(fits.values()[0] == 16);
  CHECK(fits.values()[1] == 1000);
  cu::LaunchBindings shorter = bindings;
  shorter.elements[0] = 15;
  expect_error([&] { cu::KernelArgs(declared, shorter); }, VYRE_ERR_INTERNAL, "declared with 16");
  cu::LaunchBindings longer = bindings;
  longer.elements[0] = 17;
  expect_error([&] { cu::KernelArgs(declared, longer); }, VYRE_ERR_INTERNAL, "declared with 16");

  // A covering buffer (LowerOptions::covering) is launched with the tail guard and at least N
  // elements (the optimizer proved its accesses at InvocationId.x against N).
  const auto covering = entry_with({{ParamKind::ElementCount, 2, 4, 0, true}, {ParamKind::ElementCount, 0, 4}});
  cu::KernelArgs covered(covering, bindings);  // 1000 elements for N = 1000
  CHECK(covered.values()[0] == 1000);
  cu::LaunchBindings past = bindings;
  past.n = 1001;
  expect_error([&] { cu::KernelArgs(covering, past); }, VYRE_ERR_INTERNAL, "covers the dispatch");
  cu::LaunchBindings unguarded = bindings;
  unguarded.tail_guard = false;
  expect_error([&] { cu::KernelArgs(covering, unguarded); }, VYRE_ERR_INTERNAL, "covers the dispatch");
  cu::LaunchBindings smaller_n = bindings;  // more elements than N; buffer 0 (16) is not covering
  smaller_n.n = 999;
  CHECK(cu::KernelArgs(covering, smaller_n).values()[0] == 1000);
}

TEST_CASE("device ordinals: options first, then VYRE_CUDA_DEVICE_ORDINAL, then 0") {
  CHECK(cu::parse_device_ordinal(nullptr) == std::nullopt);
  CHECK(cu::parse_device_ordinal("") == std::nullopt);
  CHECK(cu::parse_device_ordinal("0") == 0);
  CHECK(cu::parse_device_ordinal("7") == 7);
  for (const char* bad : {"x", "-1", "1.5", "0x1", " 1", "1 ", "2147483648"}) {
    INFO(bad);
    expect_error([&] { cu::parse_device_ordinal(bad); }, VYRE_ERR_INVALID_ARGUMENT, "VYRE_CUDA_DEVICE_ORDINAL");
  }
  CHECK(cu::choose_device_ordinal(std::nullopt, nullptr) == 0);
  CHECK(cu::choose_device_ordinal(std::nullopt, "3") == 3);
  CHECK(cu::choose_device_ordinal(2, "3") == 2);
  expect_error([] { cu::choose_device_ordinal(-2, nullptr); }, VYRE_ERR_INVALID_ARGUMENT);
  cu::check_device_visible(1, 2);
  expect_error([] { cu::check_device_visible(2, 2); }, VYRE_ERR_NO_DEVICE, "2 device(s)");
  expect_error([] { cu::check_device_visible(0, 0); }, VYRE_ERR_NO_DEVICE);
}

TEST_CASE("the JIT cache goes under ~/.cache/vyre unless the user chose a directory") {
  CHECK(cu::jit_cache_directory("/mine", "/xdg", "/home/u").empty());
  CHECK(cu::jit_cache_directory(nullptr, "/xdg", "/home/u") == "/xdg/vyre");
  CHECK(cu::jit_cache_directory("", "", "/home/u") == "/home/u/.cache/vyre");
  CHECK(cu::jit_cache_directory(nullptr, nullptr, nullptr).empty());
}

TEST_CASE("a missing driver library is VYRE_ERR_NO_DEVICE naming the library") {
  setenv(cu::kDriverLibraryEnv, "/nonexistent/dir/libcuda.so.1", 1);
  expect_error([] { cu::Driver::open(); }, VYRE_ERR_NO_DEVICE, "/nonexistent/dir/libcuda.so.1");
  unsetenv(cu::kDriverLibraryEnv);
  CHECK(cu::status_for(drv::CUDA_ERROR_OUT_OF_MEMORY) == VYRE_ERR_OUT_OF_MEMORY);
  CHECK(cu::status_for(drv::CUDA_ERROR_ILLEGAL_ADDRESS) == VYRE_ERR_DEVICE);
}

TEST_CASE("the device profile carries the probed limits and a bandwidth estimate") {
  const cu::DeviceInfo device = h100();
  CHECK(device.memory_bandwidth_gbps() == doctest::Approx(3352.32));
  vyre_device_profile profile{};
  profile.struct_size = sizeof(profile);
  cu::fill_profile(device, "sm_90", profile);
  CHECK(profile.kind == VYRE_DEVICE_KIND_GPU);
  CHECK(std::string(profile.name) == "test H100");
  CHECK(std::string(profile.target) == "sm_90");
  CHECK(profile.multiprocessors == 132);
  CHECK(profile.max_workgroup_size[2] == 64);
  CHECK(profile.max_grid_size[1] == 65535);
  CHECK(profile.cooperative_launch == 1);
}

TEST_CASE("telemetry: unique names; reset zeroes counters but keeps gauges") {
  cu::Telemetry telemetry;
  cu::Telemetry::add(telemetry.kernel_launches, 3);
  cu::Telemetry::add(telemetry.resident_bytes_live, 4096);
  std::set<std::string> names;
  for (const auto& metric : telemetry.snapshot()) CHECK(names.insert(metric.name).second);
  CHECK(names.count("kernel_launches") == 1);
  CHECK(names.count("h2d_bytes") == 1);
  CHECK(names.count("module_cache_hits") == 1);
  CHECK(names.count("timed_device_ns") == 1);
  telemetry.reset();
  CHECK(telemetry.kernel_launches.load() == 0);
  CHECK(telemetry.resident_bytes_live.load() == 4096);
}

TEST_CASE("VYRE_CUDA_FAIL rules: n-th call, from the n-th on, a chosen CUresult, versioned names") {
  namespace fault = vyre::cuda::fault;
  CHECK(fault::parse_fault_spec("").empty());
  CHECK(fault::parse_fault_spec(" , ").empty());
  const auto rules = fault::parse_fault_spec("cuMemAlloc_v2:3, cuLaunchKernel:2+:700,cuEventRecord:1");
  REQUIRE(rules.size() == 3);
  CHECK(rules[0].hook == fault::Hook::cuMemAlloc);
  CHECK(rules[0].nth == 3);
  CHECK(rules[0].result == drv::CUDA_ERROR_OUT_OF_MEMORY);
  CHECK(!rules[0].fails(2));
  CHECK(rules[0].fails(3));
  CHECK(!rules[0].fails(4));
  CHECK(rules[1].hook == fault::Hook::cuLaunchKernel);
  CHECK(rules[1].result == 700);
  CHECK(!rules[1].fails(1));
  CHECK(rules[1].fails(2));
  CHECK(rules[1].fails(9));
  CHECK(rules[2].result == 999);  // CUDA_ERROR_UNKNOWN unless the rule names one
  for (const char* bad : {"cuMemFree:1", "cuMemAlloc", "cuMemAlloc:0", "cuMemAlloc:-1", "cuMemAlloc:1:0", "nope:1",
                          "cuMemAlloc:1x", "cuMemAlloc_v9:1"}) {
    CAPTURE(bad);
    expect_error([&] { fault::parse_fault_spec(bad); }, VYRE_ERR_INVALID_ARGUMENT, "cuModuleLoadDataEx");
  }
  expect_error([] { fault::parse_fault_spec("list"); }, VYRE_ERR_INVALID_ARGUMENT, "cuGraphInstantiateWithFlags");
  CHECK(fault::hookable_list().find("cuStreamBeginCapture") != std::string::npos);
  CHECK(fault::hookable_list().find("cuMemFree") == std::string::npos);  // releases are not hookable
}

TEST_CASE("a build without fault injection ignores VYRE_CUDA_FAIL and reports no fault metrics") {
  namespace fault = vyre::cuda::fault;
  CHECK(!fault::compiled_in());
  setenv("VYRE_CUDA_FAIL", "cuMemAlloc:1", 1);
  fault::check_environment();  // a warning through the host log, never an error
  unsetenv("VYRE_CUDA_FAIL");
  CHECK(fault::metrics().empty());
}
