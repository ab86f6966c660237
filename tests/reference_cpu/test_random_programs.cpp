// Random valid programs (tests/support/random_program) through the plugin: every one compiles and
// either runs or fails with VYRE_ERR_EXECUTION (a divergent barrier or an incomplete subgroup,
// which random control flow produces); nothing else, in particular no internal error. A program
// runs the same on two fresh instances (no state leaks between dispatches), and one without
// inter-workgroup effects (a single workgroup) gives the same bytes in reverse mode.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "refcpu_harness.hpp"
#include "support/random_program.hpp"

using namespace refcpu_test;

namespace {

std::vector<vyre::host::ByteVector> inputs_for(const vyre::Program& program, std::uint64_t seed) {
  std::vector<vyre::host::ByteVector> inputs;
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (std::size_t i : program.input_indices()) {
    const vyre::BufferDecl& d = program.buffers[i];
    std::uint64_t count = d.count > 0 ? d.count : 256;
    vyre::host::ByteVector bytes(count * vyre::byte_size(d.element));
    for (auto& byte : bytes) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      byte = static_cast<std::byte>(x);
    }
    inputs.push_back(std::move(bytes));
  }
  return inputs;
}

struct Outcome {
  vyre_status status = VYRE_OK;
  std::string message;
  std::vector<vyre::host::ByteVector> outputs;
};

Outcome run_on(const vyre::host::Backend& be, const vyre::Program& program,
               const std::vector<vyre::host::ByteVector>& inputs, const vyre::DispatchConfig& config) {
  Outcome o;
  try {
    std::vector<vyre::host::Bytes> views(inputs.begin(), inputs.end());
    o.outputs = be.dispatch(be.compile(program), views, config);
  } catch (const vyre::Error& e) {
    o.status = e.code();
    o.message = e.what();
  }
  return o;
}

}  // namespace

TEST_CASE("random valid programs run or fail only with VYRE_ERR_EXECUTION, deterministically") {
  vyre::CreateOptions serial;
  serial.worker_threads = 1;
  vyre::CreateOptions reverse;
  reverse.reverse_workgroups = true;
  auto a = make_backend(serial);
  auto b = make_backend(serial);
  auto r = make_backend(reverse);
  int ran = 0, failed = 0;
  for (std::uint64_t seed = 0; seed < 400; ++seed) {
    vyre::Program program = vyre::test::random_program(seed);
    auto inputs = inputs_for(program, seed);
    vyre::DispatchConfig config;
    config.grid = std::array<std::uint32_t, 3>{1 + static_cast<std::uint32_t>(seed % 3), 1, 1};
    Outcome first = run_on(a, program, inputs, config);
    INFO("seed ", seed, ": ", first.message);
    REQUIRE((first.status == VYRE_OK || first.status == VYRE_ERR_EXECUTION));
    Outcome second = run_on(b, program, inputs, config);
    CHECK(second.status == first.status);
    CHECK(second.outputs == first.outputs);
    if (config.grid->at(0) == 1) {
      Outcome reversed = run_on(r, program, inputs, config);
      CHECK(reversed.status == first.status);
      CHECK(reversed.outputs == first.outputs);
    }
    (first.status == VYRE_OK ? ran : failed) += 1;
  }
  MESSAGE("random programs: ", ran, " ran, ", failed, " stopped with an execution error");
  CHECK(ran > 100);
}
