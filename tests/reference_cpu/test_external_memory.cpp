// External memory (ABI 1.1) on reference_cpu, through the host wrapper: host memory the caller owns
// used in place as a resident buffer, exported back as the same pointer, released exactly once
// when the last use ends (never when the import fails), read-only imports, the memory budget.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "refcpu_harness.hpp"

using namespace refcpu_test;
using namespace vyre::dsl;
using vyre::Access;
using vyre::Type;
using vyre::host::Binding;
using vyre::host::ExternalMemory;
using vyre::host::ResidentBuffer;

namespace {

// x[i] = x[i] * 2 + 1 over 64 u32 (one read_write buffer).
vyre::Program double_plus_one() {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto x = b.buffer("x", Access::ReadWrite, Type::U32, 64);
  auto i = b.let("i", invocation_id(0));
  b.store(x, i, x[i] * u32(2) + u32(1));
  return b.build();
}

// out[i] = x[i] + 1 over 64 u32 (x read only).
vyre::Program plus_one() {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto x = b.buffer("x", Access::Read, Type::U32, 64);
  auto out = b.buffer("out", Access::Output, Type::U32, 64);
  auto i = b.let("i", invocation_id(0));
  b.store(out, i, x[i] + u32(1));
  return b.build();
}

std::uint64_t address_of(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

// Host memory and a count of the release callback's calls.
struct Owned {
  std::vector<std::uint32_t> words = std::vector<std::uint32_t>(64);
  std::shared_ptr<std::atomic<int>> released = std::make_shared<std::atomic<int>>(0);

  ExternalMemory memory(bool read_only = false) {
    ExternalMemory m;
    m.kind = VYRE_MEMORY_HOST;
    m.address = address_of(words.data());
    m.byte_len = words.size() * 4;
    m.read_only = read_only;
    m.release = [count = released] { count->fetch_add(1); };
    return m;
  }
};

vyre_status code_of(auto&& fn) {
  try {
    fn();
  } catch (const vyre::Error& e) {
    return e.code();
  }
  return VYRE_OK;
}

}  // namespace

TEST_CASE("the profile promises 8-byte alignment and the plugin declares external memory") {
  CHECK(backend().device_profile().external_alignment == 8);
  CHECK((plugin_info().capabilities & VYRE_CAP_EXTERNAL_MEMORY) != 0);
  CHECK(backend().abi_minor() == 1);
}

TEST_CASE("imported host memory is used in place and exported as the same pointer") {
  auto be = make_backend();
  Owned owned;
  for (std::uint32_t i = 0; i < 64; ++i) owned.words[i] = i;
  ResidentBuffer buffer = be.import_memory(owned.memory());
  CHECK(buffer.byte_len() == 256);

  auto program = be.compile(double_plus_one());
  const Binding bindings[] = {Binding::of(buffer)};
  be.dispatch_resident(program, bindings);
  for (std::uint32_t i = 0; i < 64; ++i) CHECK(owned.words[i] == i * 2 + 1);  // no copy: written in place

  owned.words[5] = 1000;  // the caller's writes are what the backend reads
  CHECK(values_of<std::uint32_t>(be.download(buffer, 5 * 4, 4)).at(0) == 1000u);
  const std::vector<std::uint32_t> seven(1, 7);
  be.upload(buffer, 0, vyre::host::as_bytes(seven));
  CHECK(owned.words[0] == 7u);  // and its uploads land in the caller's memory

  const vyre::host::ExportedMemory out = be.export_memory(buffer);
  CHECK(out.kind == VYRE_MEMORY_HOST);
  CHECK(out.dlpack_device_type == VYRE_DLPACK_CPU);
  CHECK(out.device_id == 0);
  CHECK(out.address == address_of(owned.words.data()));
  CHECK(out.byte_len == 256);
  CHECK_FALSE(out.read_only);

  // A buffer of the backend's own exports its own memory, which the host can read directly.
  ResidentBuffer own = be.alloc(16);
  be.upload(own, 0, vyre::host::as_bytes(seven));
  const vyre::host::ExportedMemory own_out = be.export_memory(own);
  CHECK(own_out.kind == VYRE_MEMORY_HOST);
  CHECK(own_out.byte_len == 16);
  CHECK(*reinterpret_cast<const std::uint32_t*>(static_cast<std::uintptr_t>(own_out.address)) == 7u);
  CHECK(*owned.released == 0);
}

TEST_CASE("the release callback runs exactly once, when the last use ends") {
  auto program_source = double_plus_one();
  SUBCASE("free") {
    auto be = make_backend();
    Owned owned;
    ResidentBuffer buffer = be.import_memory(owned.memory());
    ResidentBuffer copy = buffer;
    CHECK(*owned.released == 0);
    buffer.free();
    CHECK(*owned.released == 1);
    copy = {};
    CHECK(*owned.released == 1);
  }
  SUBCASE("the last reference, after a pending dispatch that uses it") {
    auto be = make_backend();
    Owned owned;
    ResidentBuffer buffer = be.import_memory(owned.memory());
    auto program = be.compile(program_source);
    vyre::host::PendingDispatch pending;
    {
      const Binding bindings[] = {Binding::of(buffer)};
      pending = be.dispatch_resident_async(program, bindings);
    }
    buffer = {};
    CHECK(*owned.released == 0);  // the pending dispatch still uses it
    pending.wait();
    pending = {};
    CHECK(*owned.released == 1);
    CHECK(owned.words[3] == 1u);
  }
  SUBCASE("the backend goes first") {
    Owned owned;
    ResidentBuffer buffer;
    {
      auto be = make_backend();
      buffer = be.import_memory(owned.memory());
    }
    CHECK(*owned.released == 0);  // the buffer keeps its instance
    buffer = {};
    CHECK(*owned.released == 1);
  }
}

TEST_CASE("a refused import never calls the release callback; the caller keeps the memory") {
  auto be = make_backend();
  Owned owned;
  ExternalMemory device = owned.memory();
  device.kind = VYRE_MEMORY_DEVICE;
  CHECK(code_of([&] { be.import_memory(device); }) == VYRE_ERR_UNSUPPORTED);
  ExternalMemory misaligned = owned.memory();
  misaligned.address += 4;
  misaligned.byte_len -= 4;
  CHECK(code_of([&] { be.import_memory(misaligned); }) == VYRE_ERR_INVALID_ARGUMENT);
  ExternalMemory empty = owned.memory();
  empty.byte_len = 0;
  CHECK(code_of([&] { be.import_memory(empty); }) == VYRE_ERR_INVALID_ARGUMENT);
  ExternalMemory null = owned.memory();
  null.address = 0;
  CHECK(code_of([&] { be.import_memory(null); }) == VYRE_ERR_INVALID_ARGUMENT);
  ExternalMemory wraps = owned.memory();
  wraps.address = ~std::uint64_t{0} - 7;
  CHECK(code_of([&] { be.import_memory(wraps); }) == VYRE_ERR_INVALID_ARGUMENT);
  CHECK(*owned.released == 0);
}

TEST_CASE("read-only imported memory may be read, never written") {
  auto be = make_backend();
  Owned owned;
  for (std::uint32_t i = 0; i < 64; ++i) owned.words[i] = 10 * i;
  ResidentBuffer buffer = be.import_memory(owned.memory(true));
  CHECK(be.export_memory(buffer).read_only);

  auto reader = be.compile(plus_one());
  ResidentBuffer out = be.alloc(256);
  const Binding read[] = {Binding::of(buffer), Binding::of(out)};
  be.dispatch_resident(reader, read);
  CHECK(values_of<std::uint32_t>(be.download(out, 4 * 9, 4)).at(0) == 91u);

  auto writer = be.compile(double_plus_one());
  const Binding write[] = {Binding::of(buffer)};
  CHECK(code_of([&] { be.dispatch_resident(writer, write); }) == VYRE_ERR_INVALID_ARGUMENT);
  const std::vector<std::uint32_t> one(1, 1);
  CHECK(code_of([&] { be.upload(buffer, 0, vyre::host::as_bytes(one)); }) == VYRE_ERR_INVALID_ARGUMENT);
  CHECK(owned.words[0] == 0u);
  CHECK(owned.words[9] == 90u);
}

TEST_CASE("imported memory does not count against the memory budget") {
  vyre::CreateOptions options;
  options.memory_budget_bytes = 64;
  auto be = make_backend(options);
  Owned owned;
  ResidentBuffer imported = be.import_memory(owned.memory());  // 256 bytes > the budget
  CHECK(be.alloc(64).byte_len() == 64);                         // the whole budget is still there
  imported.free();
  CHECK(be.alloc(64).byte_len() == 64);
}
