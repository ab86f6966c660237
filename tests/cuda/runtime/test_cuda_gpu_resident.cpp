// Resident buffers, resident dispatch, sequences and graph replay on the GPU: round trips at
// offsets and merged ranges, dispatch without implicit readback, sequences equal to step-by-step
// dispatch (also over 1000 repeats), graph updates after a binding change, the memory budget and
// out-of-memory recovery, flat device memory over 10k cycles, and 8 threads on one instance.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <mutex>
#include <random>
#include <thread>

#include "gpu_support.hpp"
#include "test_programs.hpp"

namespace {

using namespace vyre::cudatest;  // test file: helpers of this suite (and its names: gpu_support.hpp)

const bool kGpu = require_gpu();

}  // namespace

TEST_CASE("resident round trip: zero at allocation, writes at offsets, merged range reads") {
  check_resident_round_trip(cuda());
}

TEST_CASE("resident dispatch uses buffers as bound, reads nothing back, and keeps them busy while in flight") {
  const auto& backend = cuda();
  const std::uint32_t n = 4096;
  const Program program = mix_program(n);
  const auto compiled = backend.compile(program);
  const auto x0 = random_words(n, 10);
  const auto y0 = random_words(n, 11);
  const ResidentBuffer x = backend.alloc(n * 4);
  const ResidentBuffer y = backend.alloc(n * 4);
  backend.upload(x, 0, vyre::host::as_bytes(x0));
  backend.upload(y, 0, vyre::host::as_bytes(y0));
  const auto expected = reference().dispatch(reference().compile(program),
                                             std::vector<vyre::host::Bytes>{vyre::host::as_bytes(x0), vyre::host::as_bytes(y0)});

  Delta delta(backend);
  const std::vector<Binding> bindings{Binding::of(x), Binding::of(y)};
  backend.dispatch_resident(compiled, bindings);
  CHECK(delta("d2h_operations") == 0);
  CHECK(delta("h2d_operations") == 0);
  CHECK(same_words("resident dispatch", words(expected[0]), words(backend.download(x, 0, n * 4))));

  // A host-bound read buffer, async, and a refused free while in flight.
  backend.upload(x, 0, vyre::host::as_bytes(x0));
  const std::vector<Binding> host_bound{Binding::of(x), Binding::host_bytes(vyre::host::as_bytes(y0))};
  auto pending = backend.dispatch_resident_async(compiled, host_bound);
  ResidentBuffer busy = x;
  expect_error([&] { busy.free(); }, VYRE_ERR_BUSY);
  pending.wait();
  CHECK(same_words("host-bound resident dispatch", words(expected[0]), words(backend.download(x, 0, n * 4))));

  backend.upload(x, 0, vyre::host::as_bytes(x0));
  const auto timing = backend.dispatch_resident_timed(compiled, bindings);
  CHECK(timing.has_device_ns);
  CHECK(timing.device_ns > 0);
  CHECK(same_words("timed resident dispatch", words(expected[0]), words(backend.download(x, 0, n * 4))));
  busy.free();
  CHECK(busy.freed());
}

TEST_CASE("a sequence equals the same steps dispatched one by one") {
  const auto& backend = cuda();
  const std::uint32_t n = 3000;
  const auto mix = backend.compile(mix_program(n));
  const auto scramble = backend.compile(scramble_program(n));
  const auto x0 = random_words(n, 20);
  const auto y0 = random_words(n, 21);
  auto fresh = [&] {
    const ResidentBuffer x = backend.alloc(n * 4);
    const ResidentBuffer y = backend.alloc(n * 4);
    backend.upload(x, 0, vyre::host::as_bytes(x0));
    backend.upload(y, 0, vyre::host::as_bytes(y0));
    return std::pair{x, y};
  };
  // Step by step: prefix [scramble], then [mix, scramble] x 7.
  const auto [sx, sy] = fresh();
  backend.dispatch_resident(scramble, std::vector<Binding>{Binding::of(sy), Binding::of(sx)});
  for (int r = 0; r < 7; ++r) {
    backend.dispatch_resident(mix, std::vector<Binding>{Binding::of(sx), Binding::of(sy)});
    backend.dispatch_resident(scramble, std::vector<Binding>{Binding::of(sy), Binding::of(sx)});
  }
  const auto step_x = words(backend.download(sx, 0, n * 4));
  const auto step_y = words(backend.download(sy, 0, n * 4));

  const auto [qx, qy] = fresh();
  std::vector<std::uint32_t> out_x(n), out_y(n / 2);
  vyre::host::Sequence sequence;
  sequence.prefix = {{scramble, {}, {qy, qx}}};
  sequence.repeated = {{mix, {}, {qx, qy}}, {scramble, {}, {qy, qx}}};
  sequence.repeat_count = 7;
  sequence.reads = {{qx, 0, vyre::host::MutableBytes(reinterpret_cast<std::byte*>(out_x.data()), n * 4)},
                    {qy, n * 2, vyre::host::MutableBytes(reinterpret_cast<std::byte*>(out_y.data()), n * 2)}};
  Delta delta(backend);
  backend.sequence(sequence);
  CHECK(same_words("sequence x", step_x, out_x));
  CHECK(same_words("sequence y (second half)", std::vector<std::uint32_t>(step_y.begin() + n / 2, step_y.end()), out_y));
  CHECK(delta("graph_launches") == 7);
  CHECK(delta("d2h_operations") == 2);
}

TEST_CASE("a repeated sequence of 1000 steps is correct") {
  const auto& backend = cuda();
  const std::uint32_t n = 1 << 16;
  const auto increment = backend.compile(increment_program(n));
  const auto x0 = random_words(n, 30);
  const ResidentBuffer x = backend.alloc(n * 4);
  backend.upload(x, 0, vyre::host::as_bytes(x0));
  std::vector<std::uint32_t> out(n);
  vyre::host::Sequence sequence;
  sequence.repeated = {{increment, {}, {x}}};
  sequence.repeat_count = 1000;
  sequence.reads = {{x, 0, vyre::host::MutableBytes(reinterpret_cast<std::byte*>(out.data()), n * 4)}};
  backend.sequence(sequence);
  auto expected = x0;
  for (auto& w : expected) w += 1000;
  CHECK(same_words("1000 repeats", expected, out));

  // 500 repeats of two steps, the second step reading what the first wrote.
  sequence.repeated = {{increment, {}, {x}}, {increment, {}, {x}}};
  sequence.repeat_count = 500;
  backend.sequence(sequence);
  for (auto& w : expected) w += 1000;
  CHECK(same_words("500 x 2 repeats", expected, out));
}

TEST_CASE("graph replay stays correct after a binding or count change, updating the graph in place") {
  const auto& backend = cuda();
  const std::uint32_t n = 2048;
  const auto mix = backend.compile(mix_program(n));
  auto run = [&](const ResidentBuffer& x, const ResidentBuffer& y, const DispatchConfig& config) {
    std::vector<std::uint32_t> out(n);
    vyre::host::Sequence sequence;
    sequence.repeated = {{mix, config, {x, y}}};
    sequence.repeat_count = 5;
    sequence.reads = {{x, 0, vyre::host::MutableBytes(reinterpret_cast<std::byte*>(out.data()), n * 4)}};
    backend.sequence(sequence);
    return out;
  };
  auto model = [](const std::vector<std::uint32_t>& x, const std::vector<std::uint32_t>& y, std::uint32_t elements) {
    return mix_model(x, y, 5, elements);  // the sequence's 5 repeats
  };
  const auto ax = random_words(n, 40), ay = random_words(n, 41), bx = random_words(n, 42), by = random_words(n, 43);
  const ResidentBuffer x1 = backend.alloc(n * 4), y1 = backend.alloc(n * 4);
  const ResidentBuffer x2 = backend.alloc(n * 4), y2 = backend.alloc(n * 4);
  backend.upload(x1, 0, vyre::host::as_bytes(ax));
  backend.upload(y1, 0, vyre::host::as_bytes(ay));
  backend.upload(x2, 0, vyre::host::as_bytes(bx));
  backend.upload(y2, 0, vyre::host::as_bytes(by));

  CHECK(same_words("first bindings", model(ax, ay, n), run(x1, y1, {})));
  Delta delta(backend);
  CHECK(same_words("second bindings", model(bx, by, n), run(x2, y2, {})));
  CHECK(delta("graph_builds") == 0);
  CHECK(delta("graph_updates") >= 1);
  CHECK(same_words("first buffers untouched by the second run", model(ax, ay, n), words(backend.download(x1, 0, n * 4))));

  DispatchConfig half;  // a count change: only the first 1024 elements run
  half.dispatch_elements = 1024;
  const auto before = words(backend.download(x2, 0, n * 4));
  Delta counts(backend);
  CHECK(same_words("count change", model(before, by, 1024), run(x2, y2, half)));
  CHECK(counts("graph_builds") == 0);
  CHECK(counts("graph_updates") >= 1);
}

TEST_CASE("over the memory budget is OUT_OF_MEMORY naming the bytes; earlier and later allocations work") {
  vyre::CreateOptions options;
  options.memory_budget_bytes = 64ull << 20;
  const auto backend = open_backend("cuda", options);
  const ResidentBuffer first = backend.alloc(32ull << 20);
  const std::string message = expect_error([&] { backend.alloc(48ull << 20); }, VYRE_ERR_OUT_OF_MEMORY);
  CHECK(message.find("50331648") != std::string::npos);  // requested
  CHECK(message.find("33554432") != std::string::npos);  // available
  const ResidentBuffer second = backend.alloc(16ull << 20);
  const auto data = random_words(1024, 50);
  backend.upload(first, (32ull << 20) - 4096, vyre::host::as_bytes(data));
  CHECK(words(backend.download(first, (32ull << 20) - 4096, 4096)) == data);
  backend.upload(second, 0, vyre::host::as_bytes(data));
  CHECK(words(backend.download(second, 0, 4096)) == data);

  // Without a budget: more than the device has.
  const auto& device = cuda();
  const std::uint64_t too_much = device.device_profile().total_memory_bytes * 2;
  expect_error([&] { device.alloc(too_much); }, VYRE_ERR_OUT_OF_MEMORY);
  const ResidentBuffer fine = device.alloc(1 << 20);
  CHECK(fine.byte_len() == (1u << 20));
}

TEST_CASE("device memory stays flat over 10k allocate/dispatch/free cycles") {
  const auto& backend = cuda();
  const std::uint32_t n = 1024;
  const auto increment = backend.compile(increment_program(n));
  const auto data = random_words(n, 60);
  const std::uint64_t cycles = env_u64("VYRE_TEST_CYCLES", 10000);
  auto cycle = [&](std::uint64_t k) {
    ResidentBuffer buffer = backend.alloc(n * 4);
    ResidentBuffer scratch = backend.alloc(64 + (k % 3) * 4096);  // varying sizes
    backend.upload(buffer, 0, vyre::host::as_bytes(data));
    if (k % 2 == 0) {
      backend.dispatch_resident(increment, std::vector<Binding>{Binding::of(buffer)});
    } else {
      backend.dispatch_resident_async(increment, std::vector<Binding>{Binding::of(buffer)}).wait();
    }
    if (k % 97 == 0) {
      auto expected = data;
      for (auto& w : expected) w += 1;
      CHECK(words(backend.download(buffer, 0, n * 4)) == expected);
    }
    buffer.free();
    scratch.free();
  };
  for (std::uint64_t k = 0; k < 200; ++k) cycle(k);  // warm the pools
  const std::uint64_t free_before = metric(backend, "device_memory_free_bytes");
  const std::uint64_t pool_before = metric(backend, "device_bytes_allocated");
  for (std::uint64_t k = 0; k < cycles; ++k) cycle(k);
  const std::uint64_t free_after = metric(backend, "device_memory_free_bytes");
  const std::uint64_t pool_after = metric(backend, "device_bytes_allocated");
  std::cout << "device memory free: " << free_before << " -> " << free_after << " bytes; pool " << pool_before << " -> "
            << pool_after << " bytes over " << cycles << " cycles" << std::endl;
  CHECK(pool_after == pool_before);
  CHECK(free_after + (16ull << 20) >= free_before);  // no growth beyond driver noise
  CHECK(metric(backend, "resident_bytes_live") == 0);
}

TEST_CASE("8 threads share one backend: resident work, sequences and host dispatch") {
  const auto& backend = cuda();
  const std::uint32_t n = 4096;
  const auto mix = backend.compile(mix_program(n));
  const auto increment = backend.compile(increment_program(n));
  const auto shared_y = random_words(n, 70);
  const ResidentBuffer y = backend.alloc(n * 4);  // read by every thread at once
  backend.upload(y, 0, vyre::host::as_bytes(shared_y));
  const auto failures = run_threads(8, [&](int t, Failures&) {
    const ResidentBuffer x = backend.alloc(n * 4);
    for (int iteration = 0; iteration < 30; ++iteration) {
      auto model = random_words(n, 1000 * t + iteration);
      backend.upload(x, 0, vyre::host::as_bytes(model));
      backend.dispatch_resident(mix, std::vector<Binding>{Binding::of(x), Binding::of(y)});
      model = mix_model(std::move(model), shared_y);
      if (iteration % 3 == 0) {
        std::vector<std::uint32_t> out(n);
        vyre::host::Sequence sequence;
        sequence.repeated = {{increment, {}, {x}}};
        sequence.repeat_count = 4;
        sequence.reads = {{x, 0, vyre::host::MutableBytes(reinterpret_cast<std::byte*>(out.data()), n * 4)}};
        backend.sequence(sequence);
        for (auto& w : model) w += 4;
        if (out != model) throw std::runtime_error("sequence result differs");
      }
      if (words(backend.download(x, 0, n * 4)) != model) {
        throw std::runtime_error("resident result differs at iteration " + std::to_string(iteration));
      }
      const auto host = backend.dispatch(mix, std::vector<vyre::host::Bytes>{vyre::host::as_bytes(model),
                                                                               vyre::host::as_bytes(shared_y)});
      if (words(host.at(0)) != mix_model(model, shared_y)) {
        throw std::runtime_error("host dispatch result differs");
      }
    }
  });
  CHECK(failures.empty());
}

TEST_CASE("handles of another instance are rejected") {
  const auto other = open_backend("cuda");
  const ResidentBuffer foreign = other.alloc(64);
  const auto compiled = cuda().compile(increment_program(16));
  try {
    cuda().dispatch_resident(compiled, std::vector<Binding>{Binding::of(foreign)});
    FAIL("a foreign resident buffer was accepted");
  } catch (const vyre::Error& error) {
    INFO(error.what());
    CHECK(error.code() == VYRE_ERR_INVALID_HANDLE);
  }
}
