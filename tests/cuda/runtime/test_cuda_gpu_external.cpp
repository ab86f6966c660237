// External memory (ABI 1.1) on the GPU: a CUdeviceptr from the test's own cuMemAlloc is imported,
// dispatched on and exported as the same pointer and device; no copy is made (a second import of
// the same memory sees the first one's writes); the release callback runs once, after the work.
// Needs an NVIDIA GPU, else prints why and exits 77.
#include <doctest/doctest.h>

#include <atomic>
#include <memory>
#include <vector>

#include "driver_memory.hpp"
#include "gpu_support.hpp"
#include "test_programs.hpp"

namespace {

using namespace vyre::cudatest;  // test file: helpers of this suite (and its names: gpu_support.hpp)
using vyre::host::ExternalMemory;

const bool kGpu = require_gpu();

ExternalMemory external(const DriverMemory& owned, const std::shared_ptr<std::atomic<int>>& released) {
  ExternalMemory m;
  m.kind = VYRE_MEMORY_DEVICE;
  m.address = owned.address();
  m.byte_len = owned.bytes();
  m.release = [released] { released->fetch_add(1); };
  return m;
}

}  // namespace

TEST_CASE("a cuMemAlloc'd pointer is imported, dispatched on in place and exported unchanged") {
  const auto& backend = cuda_device0();
  const std::uint32_t n = 1 << 20;
  DriverMemory owned(std::uint64_t{n} * 4);
  auto released = std::make_shared<std::atomic<int>>(0);
  const Program program = mix_program(n);
  const auto compiled = backend.compile(program);
  const auto x0 = random_words(n, 30), y0 = random_words(n, 31);
  const auto expected = reference().dispatch(reference().compile(program), std::vector<Bytes>{bytes(x0), bytes(y0)});
  {
    Delta delta(backend);
    const ResidentBuffer x = backend.import_memory(external(owned, released));
    CHECK(delta("resident_imports") == 1);
    CHECK(delta("resident_allocations") == 0);
    const ResidentBuffer y = backend.alloc(std::uint64_t{n} * 4);
    backend.upload(x, 0, bytes(x0));
    backend.upload(y, 0, bytes(y0));
    backend.dispatch_resident(compiled, std::vector<Binding>{Binding::of(x), Binding::of(y)});

    const vyre::host::ExportedMemory out = backend.export_memory(x);
    CHECK(out.address == owned.address());  // the same pointer: no copy
    CHECK(out.kind == VYRE_MEMORY_DEVICE);
    CHECK(out.dlpack_device_type == VYRE_DLPACK_CUDA);
    CHECK(out.device_id == 0);
    CHECK(out.byte_len == std::uint64_t{n} * 4);

    // A second import of the same memory reads what the dispatch wrote through the first.
    auto second_released = std::make_shared<std::atomic<int>>(0);
    const ResidentBuffer alias = backend.import_memory(external(owned, second_released));
    CHECK(same_words("imported memory after dispatch", words(expected[0]),
                     words(backend.download(alias, 0, std::uint64_t{n} * 4))));
    CHECK(*released == 0);
  }
  CHECK(*released == 1);
}

TEST_CASE("async work on imported memory finishes before the release callback") {
  const auto& backend = cuda_device0();
  const std::uint32_t n = 1 << 16;
  DriverMemory owned(std::uint64_t{n} * 4);
  auto released = std::make_shared<std::atomic<int>>(0);
  const auto compiled = backend.compile(increment_program(n));
  const auto x0 = random_words(n, 32, 1u << 30);
  std::vector<vyre::host::PendingDispatch> pending;
  {
    const ResidentBuffer x = backend.import_memory(external(owned, released));
    backend.upload(x, 0, bytes(x0));
    for (int k = 0; k < 4; ++k) pending.push_back(backend.dispatch_resident_async(compiled, std::vector<Binding>{Binding::of(x)}));
  }
  CHECK(*released == 0);
  pending.clear();
  CHECK(*released == 1);
  // Import again to read the result: the four increments all landed.
  auto again = std::make_shared<std::atomic<int>>(0);
  const ResidentBuffer x = backend.import_memory(external(owned, again));
  auto expected = x0;
  for (auto& v : expected) v += 4;
  CHECK(same_words("after async increments", expected, words(backend.download(x, 0, std::uint64_t{n} * 4))));
}

TEST_CASE("imports the driver refuses keep their ownership") {
  const auto& backend = cuda_device0();
  DriverMemory owned(4096);
  auto released = std::make_shared<std::atomic<int>>(0);
  ExternalMemory too_long = external(owned, released);
  too_long.byte_len = 64ull << 20;  // far past the end of a 4 KiB allocation, whatever the driver rounds to
  expect_error([&] { backend.import_memory(too_long); }, VYRE_ERR_INVALID_ARGUMENT);
  std::vector<std::uint64_t> host(512);
  ExternalMemory not_device = external(owned, released);
  not_device.address = reinterpret_cast<std::uintptr_t>(host.data());
  expect_error([&] { backend.import_memory(not_device); }, VYRE_ERR_INVALID_ARGUMENT);
  ExternalMemory host_kind = external(owned, released);
  host_kind.kind = VYRE_MEMORY_HOST;
  expect_error([&] { backend.import_memory(host_kind); }, VYRE_ERR_UNSUPPORTED);
  CHECK(*released == 0);
}
