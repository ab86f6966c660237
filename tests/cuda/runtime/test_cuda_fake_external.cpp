// External memory (ABI 1.1) in the cuda plugin, on the fake driver (CPU only), and dispatches
// ordered after the caller's own stream (VYRE_EXTENSION_NATIVE_STREAM): a CUdeviceptr the
// test allocated itself is imported without a copy or an allocation, used by resident dispatch,
// uploads and downloads in stream order, exported as the same pointer and device ordinal, released
// exactly once after its last work finished and never freed by the plugin; imports the driver
// cannot vouch for are refused (INVALID_ARGUMENT or UNSUPPORTED) and keep their ownership.
#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <vector>

#include "driver_memory.hpp"
#include "fake_driver/fake_cuda.h"
#include "fake_kernels.hpp"
#include "gpu_support.hpp"
#include "test_programs.hpp"

namespace {

using namespace vyre::cudatest;  // test file: helpers of this suite (and its names: gpu_support.hpp)
using vyre::host::ExternalMemory;

const bool kFakeDriver = use_fake_driver("fake_cuda_external_cache_home");

constexpr std::uint32_t kWordBound = 100000;

const vyre::host::Backend& fake() {
  static const vyre::host::Backend backend = open_backend("cuda");
  return backend;
}

// The release callback's calls, counted.
struct Released {
  std::shared_ptr<std::atomic<int>> count = std::make_shared<std::atomic<int>>(0);
  ExternalMemory memory(const DriverMemory& owned, std::uint64_t byte_len) const {
    ExternalMemory m;
    m.kind = VYRE_MEMORY_DEVICE;
    m.address = owned.address();
    m.byte_len = byte_len;
    m.release = [c = count] { c->fetch_add(1); };
    return m;
  }
  int operator*() const { return count->load(); }
};

// The fake's device memory is host memory: the words at `address`, read directly (no vyre call).
std::vector<std::uint32_t> words_at(std::uint64_t address, std::size_t n) {
  std::vector<std::uint32_t> out(n);
  std::memcpy(out.data(), reinterpret_cast<const void*>(static_cast<std::uintptr_t>(address)), n * 4);
  return out;
}

}  // namespace

TEST_CASE("an imported CUdeviceptr is used in place and exported as the same pointer") {
  FakeScope scope(Kernel::Mix);
  const std::uint32_t n = 2048;
  DriverMemory owned(n * 4);
  Released released;
  const auto mix = fake().compile(mix_program(n));
  const auto x0 = random_words(n, 20, kWordBound), y0 = random_words(n, 21, kWordBound);
  {
    const fake_cuda_stats before = FakeScope::stats();
    const Delta imports(fake());
    const ResidentBuffer x = fake().import_memory(released.memory(owned, n * 4));
    CHECK(FakeScope::stats().live_device_allocations == before.live_device_allocations);  // no allocation
    CHECK(FakeScope::stats().device_memsets == before.device_memsets);                    // no zero fill
    CHECK(imports("resident_imports") == 1);
    CHECK(imports("resident_allocations") == 0);
    CHECK(x.byte_len() == n * 4);

    const ResidentBuffer y = fake().alloc(n * 4);
    fake().upload(x, 0, bytes(x0));
    fake().upload(y, 0, bytes(y0));
    fake().dispatch_resident(mix, std::vector<Binding>{Binding::of(x), Binding::of(y)});
    CHECK(words_at(owned.address(), n) == mix_model(x0, y0));  // written in the caller's memory
    CHECK(words(fake().download(x, 0, n * 4)) == mix_model(x0, y0));

    const vyre::host::ExportedMemory out = fake().export_memory(x);
    CHECK(out.kind == VYRE_MEMORY_DEVICE);
    CHECK(out.dlpack_device_type == VYRE_DLPACK_CUDA);
    CHECK(out.device_id == 0);
    CHECK(out.address == owned.address());
    CHECK(out.byte_len == n * 4);
    CHECK_FALSE(out.read_only);
    CHECK(fake().export_memory(y).address != 0);  // the plugin's own buffers export too
    CHECK(*released == 0);
  }
  CHECK(*released == 1);
  CHECK(fake_cuda_pointer_device(owned.address(), n * 4) == 0);  // still allocated: the caller frees it
}

TEST_CASE("export and release wait for the work queued on the imported memory") {
  FakeScope scope(Kernel::Increment);
  const std::uint32_t n = 1024;
  DriverMemory owned(n * 4);
  Released released;
  const auto increment = fake().compile(increment_program(n));
  const auto x0 = random_words(n, 22, kWordBound);
  std::vector<vyre::host::PendingDispatch> pending;
  {
    const ResidentBuffer x = fake().import_memory(released.memory(owned, n * 4));
    fake().upload(x, 0, bytes(x0));
    for (int k = 0; k < 3; ++k) pending.push_back(fake().dispatch_resident_async(increment, std::vector<Binding>{Binding::of(x)}));
    // The fake runs queued work only when something waits for it: export must have waited.
    CHECK(fake().export_memory(x).address == owned.address());
    auto expected = x0;
    for (auto& v : expected) v += 3;
    CHECK(words_at(owned.address(), n) == expected);
    for (int k = 0; k < 2; ++k) pending.push_back(fake().dispatch_resident_async(increment, std::vector<Binding>{Binding::of(x)}));
  }
  CHECK(*released == 0);  // the pending dispatches still use it
  pending.clear();
  CHECK(*released == 1);
  auto expected = x0;
  for (auto& v : expected) v += 5;
  CHECK(words_at(owned.address(), n) == expected);  // the last work finished before the release
}

TEST_CASE("imports the driver cannot vouch for are refused; the caller keeps ownership") {
  FakeScope scope(Kernel::None);
  DriverMemory owned(4096);
  Released released;
  ExternalMemory host = released.memory(owned, 4096);
  host.kind = VYRE_MEMORY_HOST;
  expect_error([&] { fake().import_memory(host); }, VYRE_ERR_UNSUPPORTED);
  ExternalMemory too_long = released.memory(owned, 4097);
  expect_error([&] { fake().import_memory(too_long); }, VYRE_ERR_INVALID_ARGUMENT);
  ExternalMemory tail = released.memory(owned, 64);
  tail.address += 4096 - 56;  // 8-byte aligned, but only 56 bytes of the allocation are left
  expect_error([&] { fake().import_memory(tail); }, VYRE_ERR_INVALID_ARGUMENT);
  std::vector<std::uint64_t> not_device(512);
  ExternalMemory unknown = released.memory(owned, 4096);
  unknown.address = reinterpret_cast<std::uintptr_t>(not_device.data());
  expect_error([&] { fake().import_memory(unknown); }, VYRE_ERR_INVALID_ARGUMENT);
  ExternalMemory misaligned = released.memory(owned, 64);
  misaligned.address += 4;
  expect_error([&] { fake().import_memory(misaligned); }, VYRE_ERR_INVALID_ARGUMENT);
  CHECK(*released == 0);

  // An import inside the allocation (not at its start) is fine.
  ExternalMemory inside = released.memory(owned, 64);
  inside.address += 4096 - 64;
  CHECK(fake().export_memory(fake().import_memory(inside)).address == owned.address() + 4096 - 64);
  CHECK(*released == 1);
}

TEST_CASE("read-only imported device memory is refused as a write target") {
  FakeScope scope(Kernel::Increment);
  const std::uint32_t n = 256;
  DriverMemory owned(n * 4);
  Released released;
  ExternalMemory memory = released.memory(owned, n * 4);
  memory.read_only = true;
  const ResidentBuffer x = fake().import_memory(memory);
  CHECK(fake().export_memory(x).read_only);
  const auto increment = fake().compile(increment_program(n));
  expect_error([&] { fake().dispatch_resident(increment, std::vector<Binding>{Binding::of(x)}); },
               VYRE_ERR_INVALID_ARGUMENT);
  expect_error([&] { fake().upload(x, 0, bytes(random_words(n, 23, kWordBound))); }, VYRE_ERR_INVALID_ARGUMENT);
}

TEST_CASE("an instance destroyed with an imported buffer alive leaves the memory to its owner") {
  FakeScope scope(Kernel::None);
  DriverMemory owned(4096);
  Released released;
  const fake_cuda_stats before = FakeScope::stats();
  {
    const auto backend = open_backend("cuda");
    const ResidentBuffer x = backend.import_memory(released.memory(owned, 4096));
    backend.upload(x, 0, bytes(random_words(1024, 24, kWordBound)));
  }
  CHECK(*released == 1);
  CHECK(live_difference(before, FakeScope::stats()) == "");
  CHECK(fake_cuda_pointer_device(owned.address(), 4096) == 0);
}

// ---- VYRE_EXTENSION_NATIVE_STREAM: a dispatch ordered after the caller's own stream ------------

namespace {

// Work "another library" queues on its stream: overwrite `n` words at `address` with `value`.
struct ProducerWrite {
  std::uint64_t address = 0;
  std::uint32_t n = 0;
  std::uint32_t value = 0;
  static void run(void* self) {
    const auto* w = static_cast<const ProducerWrite*>(self);
    const std::vector<std::uint32_t> words(w->n, w->value);
    std::memcpy(reinterpret_cast<void*>(static_cast<std::uintptr_t>(w->address)), words.data(), w->n * 4);
  }
};

}  // namespace

TEST_CASE("dispatch_resident_after waits on the device for work queued on the caller's stream") {
  FakeScope scope(Kernel::Mix);
  const std::uint32_t n = 1024;
  REQUIRE(fake().can_wait_native_stream(VYRE_NATIVE_STREAM_CUDA));
  CHECK_FALSE(fake().can_wait_native_stream(VYRE_NATIVE_STREAM_CUDA + 1));
  DriverMemory owned(n * 4);
  DriverStream producer;
  Released released;
  const auto mix = fake().compile(mix_program(n));
  const auto y0 = random_words(n, 31, kWordBound);
  {
    const ResidentBuffer x = fake().import_memory(released.memory(owned, n * 4));
    const ResidentBuffer y = fake().alloc(n * 4);
    fake().upload(x, 0, bytes(std::vector<std::uint32_t>(n, 1)));
    fake().upload(y, 0, bytes(y0));
    REQUIRE(words(fake().download(x, 0, n * 4)) == std::vector<std::uint32_t>(n, 1));  // the upload is done
    // The fake runs a stream's work only when something waits for it: a dispatch that did not
    // wait for the producer's stream would read the 1s, not the 5s.
    ProducerWrite write{owned.address(), n, 5};
    fake_cuda_enqueue_host(reinterpret_cast<void*>(static_cast<std::uintptr_t>(producer.handle())), &ProducerWrite::run,
                           &write);
    fake_cuda_reset_call_counts();
    fake().dispatch_resident_after(mix, std::vector<Binding>{Binding::of(x), Binding::of(y)}, VYRE_NATIVE_STREAM_CUDA,
                                   producer.handle());
    CHECK(fake_cuda_call_count("cuEventRecord") >= 1);
    CHECK(fake_cuda_call_count("cuStreamWaitEvent") >= 1);
    CHECK(fake_cuda_call_count("cuStreamSynchronize") == 0);  // no host wait for the producer
    CHECK(words(fake().download(x, 0, n * 4)) == mix_model(std::vector<std::uint32_t>(n, 5), y0));

    // The legacy default stream (0) is a stream too.
    fake().dispatch_resident_after(mix, std::vector<Binding>{Binding::of(x), Binding::of(y)}, VYRE_NATIVE_STREAM_CUDA, 0);
    CHECK(words(fake().download(x, 0, n * 4)) == mix_model(std::vector<std::uint32_t>(n, 5), y0, 2));
  }
  producer.synchronize();
}

namespace {

// What the refusal tests dispatch: mix over x = 2s and y = 1s (x becomes 7s when it runs).
struct RefusedDispatch {
  static constexpr std::uint32_t n = 256;
  vyre::host::Program mix = fake().compile(mix_program(n));
  ResidentBuffer x = filled(2);
  ResidentBuffer y = filled(1);
  std::vector<Binding> bindings{Binding::of(x), Binding::of(y)};

  static ResidentBuffer filled(std::uint32_t value) {
    ResidentBuffer buffer = fake().alloc(n * 4);
    fake().upload(buffer, 0, bytes(std::vector<std::uint32_t>(n, value)));
    return buffer;
  }
  std::vector<std::uint32_t> x_words() const { return words(fake().download(x, 0, n * 4)); }
};

}  // namespace

TEST_CASE("dispatch_resident_after refuses a stream the driver refuses and queues nothing") {
  FakeScope scope(Kernel::Mix);
  const RefusedDispatch d;
  std::uint64_t gone = 0;
  {
    DriverStream destroyed;
    gone = destroyed.handle();
  }
  expect_error([&] { fake().dispatch_resident_after(d.mix, d.bindings, VYRE_NATIVE_STREAM_CUDA, gone); },
               VYRE_ERR_INVALID_ARGUMENT);
  CHECK(FakeScope::stats().violations == 1);  // the fake counts the unknown stream; the plugin only passed it on
  fake_cuda_reset_counters();
  CHECK(d.x_words() == std::vector<std::uint32_t>(d.n, 2));  // nothing ran
  fake().dispatch_resident(d.mix, d.bindings);               // still usable
  CHECK(d.x_words() == std::vector<std::uint32_t>(d.n, 7));
}

TEST_CASE("dispatch_resident_after refuses a stream that is capturing a graph, and the capture survives") {
  FakeScope scope(Kernel::Mix);
  const RefusedDispatch d;
  DriverStream producer;
  producer.begin_capture();
  fake_cuda_reset_call_counts();
  expect_error([&] { fake().dispatch_resident_after(d.mix, d.bindings, VYRE_NATIVE_STREAM_CUDA, producer.handle()); },
               VYRE_ERR_UNSUPPORTED);
  CHECK(fake_cuda_call_count("cuEventRecord") == 0);  // nothing recorded into the capture
  CHECK(fake_cuda_call_count("cuStreamWaitEvent") == 0);
  CHECK(fake_cuda_call_count("cuGraphLaunch") + fake_cuda_call_count("cuLaunchKernel") == 0);
  CHECK(FakeScope::stats().violations == 0);
  producer.end_capture();                                     // the caller's capture ends normally
  CHECK(d.x_words() == std::vector<std::uint32_t>(d.n, 2));  // nothing ran
  fake().dispatch_resident_after(d.mix, d.bindings, VYRE_NATIVE_STREAM_CUDA, producer.handle());  // after it: runs
  CHECK(d.x_words() == std::vector<std::uint32_t>(d.n, 7));
}

TEST_CASE("a backend without the native-stream extension says so") {
  const vyre::host::Backend cpu = open_backend("reference_cpu");
  CHECK_FALSE(cpu.can_wait_native_stream(VYRE_NATIVE_STREAM_CUDA));
  const auto program = cpu.compile(mix_program(4));
  const ResidentBuffer x = cpu.alloc(16), y = cpu.alloc(16);
  expect_error(
      [&] {
        cpu.dispatch_resident_after(program, std::vector<Binding>{Binding::of(x), Binding::of(y)}, VYRE_NATIVE_STREAM_CUDA, 0);
      },
      VYRE_ERR_UNSUPPORTED);
}
