// Bounded dispatch on reference_cpu (issue 13 item 6): a time limit stops a hostile program (nested
// 2^32 loops, 2^32 fixpoint iterations, many workgroups on the thread pool) with VYRE_ERR_TIMEOUT
// within about the limit; pending_cancel stops an asynchronous dispatch with VYRE_ERR_CANCELLED
// and writes no output; memory_budget_bytes covers the staged memory of host dispatches.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "refcpu_harness.hpp"

using namespace refcpu_test;
using namespace vyre::dsl;
using vyre::Access;
using vyre::Type;

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kLimitNs = 200'000'000;  // 0.2 s
// Generous for a loaded 2-core CI machine under sanitizers: without a stop it would run for hours.
constexpr auto kStoppedWithin = std::chrono::seconds(10);

// out[i] = sum over j, k < 2^32 - 1 of (j ^ k): 2^64 trips, never finishes in practice.
vyre::Program nested_loops() {
  vyre::ProgramBuilder b;
  b.workgroup(1);
  auto out = b.buffer("out", Access::Output, Type::U32, 1);
  b.let("acc", u32(0));
  b.loop("j", u32(0), u32(0xFFFF'FFFFu), [&](vyre::Expr j) {
    b.loop("k", u32(0), u32(0xFFFF'FFFFu), [&](vyre::Expr k) { b.assign("acc", var("acc") + (j ^ k)); });
  });
  b.store(out, u32(0), var("acc"));
  return b.build();
}

// Every invocation adds one to out[id] once per fixpoint iteration.
vyre::Program increment(std::uint32_t elements) {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto data = b.buffer("data", Access::ReadWrite, Type::U32, elements);
  vyre::Expr i = b.let("i", invocation_id(0));
  b.store(data, i, data[i] + u32(1));
  return b.build();
}

// out[i] = i + 1: an output buffer and no input.
vyre::Program fill(std::uint32_t elements) {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto out = b.buffer("out", Access::Output, Type::U32, elements);
  vyre::Expr i = b.let("i", invocation_id(0));
  b.store(out, i, i + u32(1));
  return b.build();
}

vyre::DispatchConfig with_limit(vyre::DispatchConfig config, std::uint64_t limit_ns) {
  config.time_limit_ns = limit_ns;
  return config;
}

struct Outcome {
  vyre_status code = VYRE_OK;
  Clock::duration took{};
};

template <class F>
Outcome timed_status(F&& f) {
  Outcome o;
  const auto start = Clock::now();
  try {
    f();
  } catch (const vyre::Error& e) {
    o.code = e.code();
  }
  o.took = Clock::now() - start;
  return o;
}

}  // namespace

TEST_CASE("reference_cpu declares deadlines and cancellation") {
  CHECK((plugin_info().capabilities & VYRE_CAP_DEADLINE) != 0);
  CHECK((plugin_info().capabilities & VYRE_CAP_CANCEL) != 0);
}

TEST_CASE("a time limit stops nested 2^32 loops with VYRE_ERR_TIMEOUT") {
  const auto& be = backend();
  auto program = be.compile(nested_loops());
  vyre::host::ByteVector out(4, std::byte{0x5A});
  std::vector<vyre::host::MutableBytes> outputs = {out};
  const Outcome o = timed_status([&] { be.dispatch_into(program, {}, outputs, with_limit({}, kLimitNs)); });
  CHECK(o.code == VYRE_ERR_TIMEOUT);
  CHECK(o.took >= std::chrono::nanoseconds(kLimitNs));
  CHECK(o.took < kStoppedWithin);
  CHECK(out == vyre::host::ByteVector(4, std::byte{0x5A}));  // no output byte written
}

TEST_CASE("a time limit stops 2^32 - 1 fixpoint iterations and many workgroups on the pool") {
  const auto& be = backend();
  constexpr std::uint32_t kElements = 1 << 16;  // above the parallel threshold
  auto program = be.compile(increment(kElements));
  const auto data = bytes_of(std::vector<std::uint32_t>(kElements, 0));
  vyre::DispatchConfig config = elements(kElements);
  config.fixpoint_iterations = 0xFFFF'FFFFu;
  const Outcome o = timed_status([&] { be.dispatch(program, std::vector<vyre::host::Bytes>{data}, with_limit(config, kLimitNs)); });
  CHECK(o.code == VYRE_ERR_TIMEOUT);
  CHECK(o.took < kStoppedWithin);
}

TEST_CASE("a time limit the work fits in changes nothing") {
  const auto& be = backend();
  auto program = be.compile(increment(256));
  const auto data = bytes_of(std::vector<std::uint32_t>(256, 7));
  vyre::DispatchConfig config = elements(256);
  config.fixpoint_iterations = 3;
  auto out = be.dispatch(program, std::vector<vyre::host::Bytes>{data}, with_limit(config, 60'000'000'000ull));
  REQUIRE(out.size() == 1);
  CHECK(values_of<std::uint32_t>(out[0]) == std::vector<std::uint32_t>(256, 10));
}

TEST_CASE("a resident dispatch stops at its time limit too") {
  const auto& be = backend();
  auto program = be.compile(nested_loops());
  auto buffer = be.alloc(4);
  std::vector<vyre::host::Binding> bindings(1);
  bindings[0].resident = buffer;
  const Outcome o = timed_status([&] { be.dispatch_resident(program, bindings, with_limit({}, kLimitNs)); });
  CHECK(o.code == VYRE_ERR_TIMEOUT);
  CHECK(o.took < kStoppedWithin);
}

TEST_CASE("cancel stops a pending asynchronous dispatch with VYRE_ERR_CANCELLED") {
  const auto& be = backend();
  auto program = be.compile(nested_loops());
  vyre::host::ByteVector out(4, std::byte{0x5A});
  std::vector<vyre::host::MutableBytes> outputs = {out};
  vyre::host::PendingDispatch pending = be.dispatch_async_into(program, {}, outputs);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(pending.poll());  // it really is running
  const Outcome o = timed_status([&] {
    pending.cancel();
    pending.wait();
  });
  CHECK(o.code == VYRE_ERR_CANCELLED);
  CHECK(o.took < kStoppedWithin);
  CHECK(out == vyre::host::ByteVector(4, std::byte{0x5A}));
  pending.cancel();  // a second cancel changes nothing
  CHECK(timed_status([&] { pending.wait(); }).code == VYRE_ERR_CANCELLED);
}

TEST_CASE("an asynchronous dispatch runs to its result, and cancelling it afterwards keeps it") {
  const auto& be = backend();
  auto program = be.compile(increment(64));
  const auto data = bytes_of(std::vector<std::uint32_t>(64, 1));
  vyre::host::PendingDispatch pending = be.dispatch_async(program, std::vector<vyre::host::Bytes>{data}, elements(64));
  auto out = pending.wait();
  pending.cancel();
  REQUIRE(out.size() == 1);
  CHECK(values_of<std::uint32_t>(out[0]) == std::vector<std::uint32_t>(64, 2));
  CHECK(timed_status([&] { pending.wait(); }).code == VYRE_OK);
}

TEST_CASE("an asynchronous dispatch stops at its time limit") {
  const auto& be = backend();
  auto program = be.compile(nested_loops());
  vyre::host::PendingDispatch pending = be.dispatch_async(program, {}, with_limit({}, kLimitNs));
  const Outcome o = timed_status([&] { pending.wait(); });
  CHECK(o.code == VYRE_ERR_TIMEOUT);
  CHECK(o.took < kStoppedWithin);
}

TEST_CASE("memory_budget_bytes covers the staged outputs and inputs of host dispatches") {
  // dispatch_into writes into the caller's memory, which must stay untouched if the dispatch
  // fails: reference_cpu computes in a staged copy, and that copy counts against the budget.
  vyre::CreateOptions options;
  options.memory_budget_bytes = 4096;
  auto be = make_backend(options);
  auto small = be.compile(increment(256));    // 1 KiB read_write buffer: staged once
  auto large = be.compile(increment(2048));   // 8 KiB: over the budget
  const auto small_data = bytes_of(std::vector<std::uint32_t>(256, 0));
  const auto large_data = bytes_of(std::vector<std::uint32_t>(2048, 0));
  vyre::host::ByteVector small_out(small_data.size()), large_out(large_data.size());
  auto run_into = [&](const vyre::host::Program& p, const vyre::host::ByteVector& in, vyre::host::ByteVector& out,
                      std::uint64_t n) {
    const std::vector<vyre::host::Bytes> inputs{in};
    const std::vector<vyre::host::MutableBytes> outputs{out};
    return timed_status([&] { be.dispatch_into(p, inputs, outputs, elements(n)); }).code;
  };
  CHECK(run_into(small, small_data, small_out, 256) == VYRE_OK);
  CHECK(run_into(large, large_data, large_out, 2048) == VYRE_ERR_OUT_OF_MEMORY);
  // Resident buffers and staged dispatch memory share the budget; staged memory is given back.
  auto resident = be.alloc(3500);
  CHECK(run_into(small, small_data, small_out, 256) == VYRE_ERR_OUT_OF_MEMORY);
  resident.free();
  CHECK(be.alloc(4096).byte_len() == 4096);
}

TEST_CASE("outputs the SDK allocates are computed in place: held once, never staged") {
  // Backend::dispatch allocates the outputs and drops them if the call fails, so it passes
  // VYRE_OUTPUTS_DISCARDED_ON_FAILURE: an 8 KiB read_write buffer runs under a 4 KiB budget, and
  // so do 8 KiB outputs through dispatch_async and dispatch_timed.
  vyre::CreateOptions options;
  options.memory_budget_bytes = 4096;
  auto be = make_backend(options);
  auto large = be.compile(increment(2048));
  const auto large_data = bytes_of(std::vector<std::uint32_t>(2048, 41));
  std::vector<vyre::host::ByteVector> out;
  CHECK(timed_status([&] { out = be.dispatch(large, std::vector<vyre::host::Bytes>{large_data}, elements(2048)); })
            .code == VYRE_OK);
  REQUIRE(out.size() == 1);
  CHECK(values_of<std::uint32_t>(out[0]) == std::vector<std::uint32_t>(2048, 42));
  // Asynchronous: its inputs are copied at submission (and counted), its outputs are not staged.
  auto filled = be.compile(fill(2048));
  std::vector<std::uint32_t> expected(2048);
  for (std::uint32_t i = 0; i < 2048; ++i) expected[i] = i + 1;
  vyre::host::PendingDispatch pending = be.dispatch_async(filled, {}, elements(2048));
  const std::vector<vyre::host::ByteVector> async_out = pending.wait();
  REQUIRE(async_out.size() == 1);
  CHECK(values_of<std::uint32_t>(async_out[0]) == expected);
  CHECK(values_of<std::uint32_t>(be.dispatch_timed(filled, {}, elements(2048)).outputs[0]) == expected);
  vyre::host::ByteVector caller_out(2048 * 4);
  const std::vector<vyre::host::MutableBytes> caller{caller_out};
  CHECK(timed_status([&] { be.dispatch_into(filled, {}, caller, elements(2048)); }).code == VYRE_ERR_OUT_OF_MEMORY);
  // A failed in-place dispatch still reports its code, and the instance stays usable.
  auto loops = be.compile(nested_loops());
  CHECK(timed_status([&] { be.dispatch(loops, {}, with_limit({}, kLimitNs)); }).code == VYRE_ERR_TIMEOUT);
  CHECK(values_of<std::uint32_t>(be.dispatch(large, std::vector<vyre::host::Bytes>{large_data}, elements(2048))[0]) ==
        std::vector<std::uint32_t>(2048, 42));
}
