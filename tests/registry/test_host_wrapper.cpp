// The host C++ wrapper (vyre/backend.hpp) over a real plugin: outputs sized from the program,
// async/timed dispatch, resident buffers, sequences, pipelines and their output cache, metrics,
// handle ownership and lifetimes.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

#include "test_support.hpp"
#include "vyre/builder.hpp"

using namespace vyre;
using vyre::testing::binary_program;
using vyre::testing::bytes_of;
using vyre::testing::code_of;
using vyre::testing::test_registry;
using vyre::testing::words;

namespace {

std::uint64_t metric(const host::Backend& backend, std::string_view name) {
  for (const host::Metric& m : backend.metrics())
    if (m.name == name) return m.value;
  FAIL("no metric " << name);
  return 0;
}

struct Fixture {
  std::unique_ptr<Registry> registry = test_registry();
  host::Backend backend = registry->create("t_copy");
  std::vector<std::uint32_t> a{1, 2, 3, 4}, b{7, 7, 7, 7};
  host::Bytes inputs[2] = {host::as_bytes(a), host::as_bytes(b)};
  const std::vector<std::uint32_t> expected{6, 5, 4, 3};
};

}  // namespace

TEST_CASE_FIXTURE(Fixture, "dispatch returns outputs sized from the program") {
  host::Program program = backend.compile(binary_program(BinOp::Xor, 4));
  CHECK(program.ir() == binary_program(BinOp::Xor, 4));
  const std::vector<host::ByteVector> outputs = backend.dispatch(program, inputs);
  REQUIRE(outputs.size() == 1);
  CHECK(words(outputs[0]) == expected);
  SUBCASE("an output_byte_range trims the output") {
    Program p = binary_program(BinOp::Xor, 4);
    p.buffers[2].output_byte_range = ByteRange{4, 12};
    host::Program trimmed = backend.compile(p);
    const std::vector<host::ByteVector> out = backend.dispatch(trimmed, inputs);
    CHECK(words(out.at(0)) == std::vector<std::uint32_t>{5, 4});
  }
  SUBCASE("a runtime-sized read_write output takes its input's size") {
    host::Program in_place = backend.compile(vyre::testing::xor_in_place_program());
    const std::vector<host::ByteVector> out = backend.dispatch(in_place, inputs);
    CHECK(words(out.at(0)) == expected);
  }
  SUBCASE("caller buffers") {
    std::vector<std::uint32_t> into(6, 99);
    const host::MutableBytes outs[] = {std::as_writable_bytes(std::span(into))};
    const std::vector<std::size_t> written = backend.dispatch_into(program, inputs, outs);
    CHECK(written == std::vector<std::size_t>{16});
    CHECK(into == std::vector<std::uint32_t>{6, 5, 4, 3, 99, 99});
  }
  SUBCASE("wrong inputs come back as vyre::Error") {
    CHECK(code_of([&] { backend.dispatch(program, std::span(inputs, 1)); }) == VYRE_ERR_INVALID_ARGUMENT);
  }
}

TEST_CASE_FIXTURE(Fixture, "fixpoint iterations rerun the program on the same buffers") {
  host::Program in_place = backend.compile(vyre::testing::xor_in_place_program());
  DispatchConfig twice;
  twice.fixpoint_iterations = 2;
  CHECK(words(backend.dispatch(in_place, inputs, twice).at(0)) == a);  // x ^ k ^ k
  DispatchConfig thrice;
  thrice.fixpoint_iterations = 3;
  CHECK(words(backend.dispatch(in_place, inputs, thrice).at(0)) == expected);
}

TEST_CASE_FIXTURE(Fixture, "async and timed dispatch") {
  host::Program program = backend.compile(binary_program(BinOp::Xor, 4));
  host::PendingDispatch pending = backend.dispatch_async(program, inputs);
  a.assign(4, 0);  // inputs were consumed by the call
  const std::vector<host::ByteVector> outputs = pending.wait();
  CHECK(words(outputs.at(0)) == expected);
  CHECK(pending.poll());
  CHECK(pending.wait().empty());  // the outputs are handed out once

  a = {1, 2, 3, 4};
  const host::TimedOutputs timed = backend.dispatch_timed(program, inputs);
  CHECK(words(timed.outputs.at(0)) == expected);
  CHECK_FALSE(timed.timing.has_device_ns);
  CHECK(timed.timing.wall_ns > 0);
}

TEST_CASE_FIXTURE(Fixture, "resident buffers, resident dispatch (sync, async, timed) and sequences") {
  host::Program program = backend.compile(binary_program(BinOp::Xor, 4));
  std::vector<host::ResidentBuffer> buffers = backend.alloc_many(std::vector<std::uint64_t>{16, 16, 16});
  const host::ResidentWrite writes[] = {{buffers[0], 0, host::as_bytes(a)}, {buffers[1], 0, host::as_bytes(b)}};
  backend.upload(writes);
  const host::Binding bindings[] = {host::Binding::of(buffers[0]), host::Binding::host_bytes(host::as_bytes(b)),
                                    host::Binding::of(buffers[2])};
  SUBCASE("sync") {
    backend.dispatch_resident(program, bindings);
    CHECK(words(backend.download(buffers[2], 0, 16)) == expected);
    CHECK(words(backend.download(buffers[2], 8, 8)) == std::vector<std::uint32_t>{4, 3});
    CHECK(code_of([&] { backend.download(buffers[2], 8, 16); }) == VYRE_ERR_INVALID_ARGUMENT);
  }
  SUBCASE("timed") {
    const vyre::Timing timing = backend.dispatch_resident_timed(program, bindings);
    CHECK(timing.wall_ns > 0);
    CHECK(words(backend.download(buffers[2], 0, 16)) == expected);
  }
  SUBCASE("async: busy until done, then free; a freed buffer is an invalid handle") {
    host::PendingDispatch pending = backend.dispatch_resident_async(program, bindings);
    CHECK_FALSE(pending.wait_for(0));
    CHECK(code_of([&] { buffers[2].free(); }) == VYRE_ERR_BUSY);
    CHECK_FALSE(buffers[2].freed());
    pending.wait();
    CHECK(words(backend.download(buffers[2], 0, 16)) == expected);
    buffers[2].free();
    CHECK(buffers[2].freed());
    CHECK(code_of([&] { buffers[2].free(); }) == VYRE_ERR_INVALID_HANDLE);
    CHECK(code_of([&] { backend.download(buffers[2], 0, 16); }) == VYRE_ERR_INVALID_HANDLE);
    CHECK(code_of([&] { backend.dispatch_resident(program, bindings); }) == VYRE_ERR_INVALID_HANDLE);
  }
  SUBCASE("a sequence: prefix once, repeated steps, reads at the end") {
    host::Program in_place = backend.compile(vyre::testing::xor_in_place_program());
    std::vector<std::uint32_t> result(4, 0);
    host::Sequence sequence;
    sequence.prefix.push_back({program, {}, {buffers[0], buffers[1], buffers[2]}});   // out = a ^ b
    sequence.repeated.push_back({in_place, {}, {buffers[2], buffers[1]}});             // out ^= b
    sequence.repeat_count = 3;
    sequence.reads.push_back({buffers[2], 0, std::as_writable_bytes(std::span(result))});
    backend.sequence(sequence);
    CHECK(result == a);  // a ^ b ^ b ^ b ^ b
  }
}

TEST_CASE_FIXTURE(Fixture, "pipelines dispatch repeatedly; the output cache is opt-in and exact") {
  host::Program program = backend.compile(binary_program(BinOp::Xor, 4));
  backend.reset_metrics();
  SUBCASE("off by default: every dispatch runs") {
    host::Pipeline pipeline = backend.pipeline(program);
    CHECK(words(pipeline.dispatch(inputs).at(0)) == expected);
    CHECK(words(pipeline.dispatch(inputs).at(0)) == expected);
    CHECK(metric(backend, "test_dispatches") == 2);
    CHECK(metric(backend, "pipeline_output_cache_hits") == 0);
    CHECK(metric(backend, "pipeline_output_cache_misses") == 0);
  }
  SUBCASE("with VYRE_PIPELINE_CACHE_OUTPUTS identical inputs are served from the cache") {
    host::Pipeline pipeline = backend.pipeline(program, {}, VYRE_PIPELINE_CACHE_OUTPUTS);
    CHECK(words(pipeline.dispatch(inputs).at(0)) == expected);
    CHECK(words(pipeline.dispatch(inputs).at(0)) == expected);
    CHECK(metric(backend, "test_dispatches") == 1);
    CHECK(metric(backend, "pipeline_output_cache_hits") == 1);
    CHECK(metric(backend, "pipeline_output_cache_misses") == 1);
    b[3] = 0;  // one byte differs: a miss, and the right answer
    CHECK(words(pipeline.dispatch(inputs).at(0)) == std::vector<std::uint32_t>{6, 5, 4, 4});
    CHECK(metric(backend, "test_dispatches") == 2);
    CHECK(metric(backend, "pipeline_output_cache_misses") == 2);
    // Same bytes split differently between the inputs are different inputs.
    std::vector<std::uint32_t> longer_a = {1, 2, 3, 4, 7}, shorter_b = {7, 7, 7};
    const host::Bytes shifted[] = {host::as_bytes(longer_a), host::as_bytes(shorter_b)};
    CHECK(words(pipeline.dispatch(shifted).at(0)) == std::vector<std::uint32_t>{6, 5, 4, 4});
    CHECK(metric(backend, "pipeline_output_cache_misses") == 3);
    backend.reset_metrics();
    CHECK(metric(backend, "pipeline_output_cache_hits") == 0);
  }
  SUBCASE("refused for read_write programs") {
    host::Program in_place = backend.compile(vyre::testing::xor_in_place_program());
    CHECK(code_of([&] { backend.pipeline(in_place, {}, VYRE_PIPELINE_CACHE_OUTPUTS); }) ==
          VYRE_ERR_INVALID_ARGUMENT);
  }
}

TEST_CASE_FIXTURE(Fixture, "handles belong to their instance") {
  host::Program program = backend.compile(binary_program(BinOp::Xor, 4));
  host::Backend twin = registry->create("t_copy");
  host::Backend wide = registry->create("t_wide");
  // Same plugin, another instance: the plugin itself refuses the handle.
  CHECK(code_of([&] { twin.dispatch(program, inputs); }) == VYRE_ERR_INVALID_HANDLE);
  // Another plugin: the wrapper refuses before calling it.
  CHECK(code_of([&] { wide.dispatch(program, inputs); }) == VYRE_ERR_INVALID_HANDLE);
  host::ResidentBuffer buffer = twin.alloc(16);
  CHECK(code_of([&] { wide.upload(buffer, 0, host::as_bytes(a)); }) == VYRE_ERR_INVALID_HANDLE);
  CHECK(code_of([&] { backend.upload(buffer, 0, host::as_bytes(a)); }) == VYRE_ERR_INVALID_HANDLE);
  CHECK(words(backend.dispatch(program, inputs).at(0)) == expected);
}

TEST_CASE_FIXTURE(Fixture, "objects outlive what made them; device profile, metrics, AOT") {
  host::Program program = backend.compile(binary_program(BinOp::Xor, 4));
  host::ResidentBuffer buffer = backend.alloc(16);
  backend = host::Backend();  // the program and buffer keep the instance alive
  registry.reset();           // ... and the library loaded
  host::PendingDispatch pending;
  CHECK(buffer.byte_len() == 16);
  CHECK_FALSE(program.ir().buffers.empty());

  auto fresh = test_registry();
  host::Backend other = fresh->create("t_copy");
  const vyre_device_profile profile = other.device_profile();
  CHECK(std::string(profile.name) == "test device t_copy");
  CHECK(profile.struct_size == sizeof(vyre_device_profile));
  CHECK(metric(other, "test_compiles") == 0);
  other.compile(binary_program(BinOp::Xor, 4));
  CHECK(metric(other, "test_compiles") == 1);
  CHECK(code_of([&] { other.aot_emit(binary_program(BinOp::Xor, 4)); }) == VYRE_ERR_UNSUPPORTED);
  CHECK(code_of([&] { host::Backend::aot_emit(fresh->fns("t_copy"), binary_program(BinOp::Xor, 4)); }) ==
        VYRE_ERR_UNSUPPORTED);
}

TEST_CASE("Backend::create checks its table") {
  CHECK(code_of([] { host::Backend::create(nullptr, nullptr); }) == VYRE_ERR_INVALID_ARGUMENT);
  vyre_backend_fns small{};
  small.struct_size = 16;
  CHECK(code_of([&] { host::Backend::create(&small, nullptr); }) == VYRE_ERR_ABI);
}

TEST_CASE_FIXTURE(Fixture, "one instance is used from many threads at once") {
  host::Program shared = backend.compile(binary_program(BinOp::Xor, 4));
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      try {
        const std::vector<std::uint32_t> x = {std::uint32_t(t), 1, 2, 3}, y = {1, 1, 1, 1};
        const host::Bytes in[] = {host::as_bytes(x), host::as_bytes(y)};
        for (int i = 0; i < 40; ++i) {
          host::Program own = backend.compile(binary_program(BinOp::Xor, 4));
          const host::Program& program = (i % 2) ? own : shared;
          if (words(backend.dispatch(program, in).at(0)) != std::vector<std::uint32_t>{std::uint32_t(t) ^ 1u, 0, 3, 2})
            ++failures;
          host::ResidentBuffer buffer = backend.alloc(16);
          backend.upload(buffer, 0, host::as_bytes(x));
          if (words(backend.download(buffer, 0, 16)) != x) ++failures;
          if (i % 3 == 0) buffer.free();
        }
      } catch (const std::exception&) {
        ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(failures == 0);
}
