// ABI compatibility proven by real plugins: one C11 source (plugins/compat_plugin.c) built against
// the frozen 1.0 header, against today's header, and claiming a future 1.2; today's registry loads
// all three and today's host wrapper runs programs on each. Calls a plugin's table lacks are
// refused by the host (VYRE_ERR_UNSUPPORTED) without touching memory past the table's struct_size
// (the 1.0 plugin keeps aborting pointers there); members of a newer minor are ignored.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "vyre/builder.hpp"
#include "vyre/registry.hpp"

using namespace vyre::dsl;
using vyre::Access;
using vyre::Type;
using vyre::host::Binding;
using vyre::host::ResidentBuffer;

namespace {

const std::vector<std::string> kIds = {"compat_c11", "compat_v1_0", "compat_v1_2"};

std::unique_ptr<vyre::Registry> compat_registry() {
  vyre::RegistryOptions options;
  options.plugin_dirs = {VYRE_COMPAT_PLUGIN_DIR};
  options.use_environment = false;
  options.use_default_dirs = false;
  return std::make_unique<vyre::Registry>(options);
}

vyre::Registry& registry() {
  static const std::unique_ptr<vyre::Registry> r = compat_registry();
  return *r;
}

vyre::host::Backend backend(const std::string& id) { return registry().create(id); }

// out[i] = a[i] ^ b[i] for i < len(out), a and b runtime-sized.
vyre::Program xor_program(std::uint32_t count) {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto a = b.buffer("a", Access::Read, Type::U32);
  auto c = b.buffer("b", Access::Read, Type::U32);
  auto out = b.buffer("out", Access::Output, Type::U32, count);
  auto i = b.let("i", invocation_id(0));
  b.if_(lt(i, out.len()), [&] { b.store(out, i, bin(vyre::BinOp::Xor, a[i], c[i])); });
  return b.build();
}

// x[i] = x[i] * 3 + k[i] in place.
vyre::Program mix_program() {
  vyre::ProgramBuilder b;
  b.workgroup(32);
  auto x = b.buffer("x", Access::ReadWrite, Type::U32);
  auto k = b.buffer("k", Access::Read, Type::U32);
  auto i = b.let("i", invocation_id(0));
  b.if_(lt(i, x.len()), [&] { b.store(x, i, x[i] * u32(3) + k[i]); });
  return b.build();
}

std::vector<std::uint32_t> words(const vyre::host::ByteVector& bytes) {
  std::vector<std::uint32_t> out(bytes.size() / 4);
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * 4);
  return out;
}

vyre_status code_of(auto&& fn) {
  try {
    fn();
  } catch (const vyre::Error& e) {
    return e.code();
  }
  return VYRE_OK;
}

}  // namespace

TEST_CASE("the 1.0, C11 and 1.2 plugins load under today's host, each with its own minor") {
  INFO(registry().rejected().size() << " rejected; the first: "
                                     << (registry().rejected().empty() ? "" : registry().rejected()[0].reason));
  CHECK(registry().rejected().empty());
  std::vector<std::string> ids = registry().ids();
  std::sort(ids.begin(), ids.end());
  CHECK(ids == kIds);
  CHECK(registry().find("compat_v1_0")->abi_minor == 0);
  CHECK(registry().find("compat_c11")->abi_minor == 1);
  CHECK(registry().find("compat_v1_2")->abi_minor == 2);
  for (const std::string& id : kIds) CHECK(registry().find(id)->abi_major == VYRE_ABI_VERSION_MAJOR);
}

TEST_CASE("every compatibility plugin dispatches: host, async and resident") {
  const std::uint32_t n = 300;
  std::vector<std::uint32_t> a(n), b(n), x0(n), k(n), xor_expected(n), mix_expected(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    a[i] = i * 2654435761u;
    b[i] = i + 17;
    x0[i] = i * 7;
    k[i] = 1000 - i;
    xor_expected[i] = a[i] ^ b[i];
    mix_expected[i] = x0[i] * 3 + k[i];
  }
  for (const std::string& id : kIds) {
    INFO("plugin " << id);
    vyre::host::Backend be = backend(id);
    CHECK(std::string(be.device_profile().name) == id);
    const vyre::host::Program xor_compiled = be.compile(xor_program(n));
    const vyre::host::Bytes inputs[] = {vyre::host::as_bytes(a), vyre::host::as_bytes(b)};
    CHECK(words(be.dispatch(xor_compiled, inputs).at(0)) == xor_expected);
    CHECK(words(be.dispatch_async(xor_compiled, inputs).wait().at(0)) == xor_expected);

    const vyre::host::Program mix = be.compile(mix_program());
    ResidentBuffer x = be.alloc(n * 4);
    be.upload(x, 0, vyre::host::as_bytes(x0));
    const Binding bindings[] = {Binding::of(x), Binding::host_bytes(vyre::host::as_bytes(k))};
    be.dispatch_resident(mix, bindings);
    CHECK(words(be.download(x, 0, n * 4)) == mix_expected);
    be.dispatch_resident_async(mix, bindings).wait();
    CHECK(words(be.download(x, 4, 4)).at(0) == mix_expected[1] * 3 + k[1]);

    // The plugin's own errors come back with their codes, whatever the size of its error objects.
    vyre::ProgramBuilder f32_program;
    f32_program.workgroup(1);
    f32_program.buffer("out", Access::Output, Type::F32, 1);
    CHECK(code_of([&] { be.compile(f32_program.build()); }) == VYRE_ERR_UNSUPPORTED);
    CHECK(code_of([&] { be.dispatch_timed(xor_compiled, inputs); }) == VYRE_ERR_UNSUPPORTED);
  }
}

TEST_CASE("routing reaches the compatibility plugins like any other") {
  vyre::Route route = registry().route(xor_program(4));
  CHECK(std::find(kIds.begin(), kIds.end(), route.plugin->id) != kIds.end());
}

TEST_CASE("a 1.0 plugin: the host refuses every 1.1 call itself and never reads past its table") {
  vyre::host::Backend be = backend("compat_v1_0");
  CHECK(be.abi_minor() == 0);
  CHECK(be.extension(VYRE_EXTENSION_DEVICE_GROUP) == nullptr);
  std::vector<std::uint32_t> memory(16);
  vyre::host::ExternalMemory external;
  external.kind = VYRE_MEMORY_HOST;
  external.address = reinterpret_cast<std::uintptr_t>(memory.data());
  external.byte_len = 64;
  bool released = false;
  external.release = [&] { released = true; };
  CHECK(code_of([&] { be.import_memory(external); }) == VYRE_ERR_UNSUPPORTED);
  CHECK_FALSE(released);
  ResidentBuffer x = be.alloc(64);
  CHECK(code_of([&] { be.export_memory(x); }) == VYRE_ERR_UNSUPPORTED);

  const vyre::host::Program compiled = be.compile(xor_program(4));
  const std::vector<std::uint32_t> a(4, 1), b(4, 2);
  const vyre::host::Bytes inputs[] = {vyre::host::as_bytes(a), vyre::host::as_bytes(b)};
  vyre::DispatchConfig deadline;
  deadline.time_limit_ns = 1000000000;
  CHECK(code_of([&] { be.dispatch(compiled, inputs, deadline); }) == VYRE_ERR_UNSUPPORTED);
  vyre::host::PendingDispatch pending = be.dispatch_async(compiled, inputs);
  CHECK(code_of([&] { pending.cancel(); }) == VYRE_ERR_UNSUPPORTED);
  CHECK(words(pending.wait().at(0)) == std::vector<std::uint32_t>(4, 3));
}

TEST_CASE("a 1.2 plugin: the host uses what it knows and ignores slots and extensions it does not") {
  vyre::host::Backend be = backend("compat_v1_2");
  CHECK(be.abi_minor() == 1);  // the host's copy of the table ends where 1.1 ends
  CHECK(be.extension(VYRE_EXTENSION_DEVICE_GROUP) == nullptr);
  // The unknown extension is in the chain, larger than any 1.1 extension; nothing calls into it.
  const vyre_extension* future = be.extension(0x7FFFu);
  REQUIRE(future != nullptr);
  CHECK(future->struct_size > VYRE_EXTENSION_V1_1_SIZE);
  // 1.1 slots it has are called (its import refuses: it takes no external memory).
  std::vector<std::uint32_t> memory(16);
  vyre::host::ExternalMemory external;
  external.kind = VYRE_MEMORY_HOST;
  external.address = reinterpret_cast<std::uintptr_t>(memory.data());
  external.byte_len = 64;
  CHECK(code_of([&] { be.import_memory(external); }) == VYRE_ERR_UNSUPPORTED);
  // Its device profile is larger than today's: the host gets exactly its own size.
  CHECK(be.device_profile().struct_size == sizeof(vyre_device_profile));
}
