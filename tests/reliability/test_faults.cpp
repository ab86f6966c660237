// Faults on the reference_cpu backend through the public API and the raw C ABI: memory exhaustion,
// limits, foreign, forged and released handles, run-time failures. Each is a clear error with a
// stable code and "Fix:", no output byte is written by a failed dispatch, and the instance keeps
// working with every other resource intact.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "support/build_plugins.hpp"
#include "vyre/backend.hpp"
#include "vyre/builder.hpp"
#include "vyre/registry.hpp"

namespace {

using vyre::host::Bytes;
using vyre::host::ByteVector;
using Words = std::vector<std::uint32_t>;
using namespace vyre::dsl;
using vyre::Access;
using vyre::Type;

vyre::Registry& registry() { return vyre::test::build_plugin_registry(); }

vyre::host::Backend reference(const vyre::CreateOptions& options = {}) {
  return registry().create("reference_cpu", options);
}

struct Failure {
  vyre_status code = VYRE_OK;
  std::string message;
};

template <class F>
Failure failure_of(F&& call) {
  try {
    call();
    return {};
  } catch (const vyre::Error& e) {
    return {e.code(), e.what()};
  }
}

bool has_fix(const Failure& f) { return f.message.find("Fix:") != std::string::npos; }

// x[i] = x[i] + 1 over a runtime-sized read_write buffer.
vyre::Program increment_program() {
  vyre::ProgramBuilder b;
  b.workgroup(32);
  vyre::Buf x = b.buffer("x", Access::ReadWrite, Type::U32);
  vyre::Expr i = b.let("i", invocation_id(0));
  b.store(x, i, x[i] + u32(1));
  return b.build();
}

// out[i] = 7, then a barrier that only half of the workgroup reaches: a run-time error.
vyre::Program divergent_barrier_program() {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  vyre::Buf out = b.buffer("out", Access::Output, Type::U32, 64);
  vyre::Expr i = b.let("i", local_id(0));
  b.store(out, i, u32(7));
  b.if_(lt(i, u32(32)), [&] { b.barrier(); });
  return b.build();
}

ByteVector bytes_of(const Words& w) {
  ByteVector out(w.size() * 4);
  std::memcpy(out.data(), w.data(), out.size());
  return out;
}

}  // namespace

TEST_CASE("resident memory exhaustion is OUT_OF_MEMORY and leaves the other buffers intact") {
  vyre::CreateOptions options;
  options.memory_budget_bytes = 4096;
  vyre::host::Backend backend = reference(options);
  vyre::host::ResidentBuffer kept = backend.alloc(4000);
  const Words data(1000, 0xabcdef01u);
  backend.upload(kept, 0, vyre::host::as_bytes(data));
  const Failure over = failure_of([&] { backend.alloc(200); });
  CHECK(over.code == VYRE_ERR_OUT_OF_MEMORY);
  CHECK(has_fix(over));
  CHECK(backend.download(kept, 0, 4000) == bytes_of(data));
  kept.free();
  CHECK_NOTHROW(backend.alloc(4096).free());  // the budget is whole again
}

// Not in sanitizer builds: ASan's operator new never throws std::bad_alloc, it reports the failed
// allocation and aborts (valgrind does the same; scripts/ci-sanitize.sh excludes this case there).
TEST_CASE("a host allocation that fails is OUT_OF_MEMORY, not an abort") {
#if defined(__SANITIZE_ADDRESS__)
  MESSAGE("skipped under ASan: its operator new aborts instead of throwing std::bad_alloc");
#else
  vyre::host::Backend backend = reference();  // no budget: the host allocator says no
  const Failure huge = failure_of([&] { backend.alloc(1ull << 62); });
  CHECK(huge.code == VYRE_ERR_OUT_OF_MEMORY);
  CHECK(has_fix(huge));
  CHECK_NOTHROW(backend.alloc(64).free());
#endif
}

TEST_CASE("geometry and workgroup memory beyond the limits are LIMIT errors, not attempts") {
  vyre::host::Backend backend = reference();
  vyre::host::Program program = backend.compile(increment_program());
  const ByteVector x = bytes_of(Words(4, 1));
  const Bytes inputs[] = {x};
  vyre::DispatchConfig config;
  config.dispatch_elements = 1ull << 40;  // grid * workgroup would not fit in u32
  const Failure geometry = failure_of([&] { backend.dispatch(program, inputs, config); });
  CHECK(geometry.code == VYRE_ERR_LIMIT);
  CHECK(has_fix(geometry));

  vyre::ProgramBuilder b;
  b.workgroup(1);
  vyre::Buf big = b.buffer("big", Access::Workgroup, Type::U32, 1u << 30);  // 4 GiB per workgroup
  b.store(big, u32(0), u32(1));
  const Failure shared = failure_of([&] { backend.compile(b.build()); });
  CHECK(shared.code == VYRE_ERR_LIMIT);
  CHECK(has_fix(shared));
  CHECK(backend.dispatch(program, inputs)[0] == bytes_of(Words(4, 2)));  // still works
}

TEST_CASE("handles of another instance, released handles and forged pointers are INVALID_HANDLE") {
  vyre::host::Backend a = reference();
  vyre::host::Backend b = reference();
  vyre::host::Program program = a.compile(increment_program());
  vyre::host::ResidentBuffer buffer = a.alloc(16);
  const ByteVector x = bytes_of(Words(4, 1));
  const Bytes inputs[] = {x};
  CHECK(failure_of([&] { b.dispatch(program, inputs); }).code == VYRE_ERR_INVALID_HANDLE);
  CHECK(failure_of([&] { b.download(buffer, 0, 16); }).code == VYRE_ERR_INVALID_HANDLE);

  // The raw ABI with a pointer that was never a handle: an error, never a dereference.
  const vyre_backend_fns& fns = a.fns();
  vyre_dispatch_args args{};
  args.struct_size = sizeof args;
  args.program = reinterpret_cast<vyre_program*>(static_cast<std::uintptr_t>(0x1000));
  vyre_error* error = nullptr;
  CHECK(fns.dispatch(a.native(), &args, &error) == VYRE_ERR_INVALID_HANDLE);
  REQUIRE(error != nullptr);
  CHECK(std::string(error->message).find("Fix:") != std::string::npos);
  fns.error_release(error);
  error = nullptr;
  vyre_resident_read read{sizeof(vyre_resident_read), reinterpret_cast<vyre_resident*>(program.native()),
                          0, nullptr, 0};
  CHECK(fns.resident_download(a.native(), &read, 1, &error) == VYRE_ERR_INVALID_HANDLE);  // wrong kind
  if (error != nullptr) fns.error_release(error);
  CHECK(fns.dispatch(a.native(), nullptr, nullptr) == VYRE_ERR_INVALID_ARGUMENT);

  buffer.free();
  CHECK(failure_of([&] { a.download(buffer, 0, 16); }).code == VYRE_ERR_INVALID_HANDLE);
  CHECK(a.dispatch(program, inputs)[0] == bytes_of(Words(4, 2)));  // the instance is fine
}

TEST_CASE("a dispatch that fails at run time writes no output byte and the instance goes on") {
  vyre::host::Backend backend = reference();
  vyre::host::Program program = backend.compile(divergent_barrier_program());
  Words out(64, 0x5a5a5a5a);
  const vyre::host::MutableBytes targets[] = {std::as_writable_bytes(std::span(out))};
  const Failure f = failure_of([&] { backend.dispatch_into(program, {}, targets); });
  CHECK(f.code == VYRE_ERR_EXECUTION);
  CHECK(has_fix(f));
  CHECK(out == Words(64, 0x5a5a5a5a));
  vyre::host::Program fine = backend.compile(increment_program());
  const ByteVector x = bytes_of(Words(3, 9));
  const Bytes inputs[] = {x};
  CHECK(backend.dispatch(fine, inputs)[0] == bytes_of(Words(3, 10)));
}

TEST_CASE("bad sizes and capacities are INVALID_ARGUMENT before any work") {
  vyre::host::Backend backend = reference();
  vyre::host::Program program = backend.compile(increment_program());
  const ByteVector odd(7);  // not a multiple of the element size
  const Bytes bad[] = {odd};
  CHECK(failure_of([&] { backend.dispatch(program, bad); }).code == VYRE_ERR_INVALID_ARGUMENT);
  CHECK(failure_of([&] { backend.dispatch(program, {}); }).code == VYRE_ERR_INVALID_ARGUMENT);
  const ByteVector x = bytes_of(Words(8, 1));
  const Bytes inputs[] = {x};
  Words small(4, 0);
  const vyre::host::MutableBytes targets[] = {std::as_writable_bytes(std::span(small))};
  CHECK(failure_of([&] { backend.dispatch_into(program, inputs, targets); }).code ==
        VYRE_ERR_INVALID_ARGUMENT);
  CHECK(small == Words(4, 0));
  CHECK(failure_of([&] { backend.compile_wire(std::vector<std::uint8_t>{1, 2, 3}); }).code ==
        VYRE_ERR_DECODE);
}

TEST_CASE("fuzz finding: an output_byte_range past a runtime-sized buffer is INVALID_ARGUMENT") {
  // fuzz/regressions/dispatch/crash-6a4bb46d...: the host wrapper sized the output from the range
  // alone (about 2^60 bytes here) before the kit could reject the range against the bound length.
  vyre::ProgramBuilder b;
  b.workgroup(32);
  vyre::Buf x = b.buffer("x", Access::ReadWrite, Type::U32);  // runtime-sized: the range is checked at dispatch
  b.output_range(x, 4, 1ull << 60);
  vyre::Expr i = b.let("i", invocation_id(0));
  b.store(x, i, x[i] + u32(1));
  vyre::host::Backend backend = reference();
  vyre::host::Program program = backend.compile(b.build());
  const ByteVector in = bytes_of(Words(8, 1));
  const Bytes inputs[] = {in};
  const Failure f = failure_of([&] { backend.dispatch(program, inputs); });
  CHECK(f.code == VYRE_ERR_INVALID_ARGUMENT);
  CHECK(has_fix(f));
  CHECK(failure_of([&] { backend.dispatch_async(program, inputs).wait(); }).code == VYRE_ERR_INVALID_ARGUMENT);
}
