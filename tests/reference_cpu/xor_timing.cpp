// Prints how long the reference plugin takes to xor two 1M-element u32 buffers (workgroup 256),
// per dispatch, excluding compile: the default worker count and one worker. Also prints the cost
// of a conform-sized dispatch (one invocation) and of compiling a small program.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <vector>

#include "refcpu_harness.hpp"

namespace {

double time_ms(const vyre::host::Backend& backend, const vyre::host::Program& program,
               const std::vector<vyre::host::Bytes>& inputs, const std::vector<std::uint32_t>& expected) {
  std::vector<double> samples;
  for (int rep = 0; rep < 15; ++rep) {
    auto start = std::chrono::steady_clock::now();
    auto out = backend.dispatch(program, inputs);
    auto stop = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
    if (refcpu_test::values_of<std::uint32_t>(out[0]) != expected) {
      std::fprintf(stderr, "wrong result\n");
      std::exit(1);
    }
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

}  // namespace

int main() {
  using namespace vyre::dsl;
  const std::uint32_t n = 1u << 20;
  vyre::ProgramBuilder b;
  b.workgroup(256);
  auto x = b.buffer("x", vyre::Access::Read, vyre::Type::U32);
  auto y = b.buffer("y", vyre::Access::Read, vyre::Type::U32);
  auto out = b.buffer("out", vyre::Access::Output, vyre::Type::U32, n);
  auto i = b.let("i", invocation_id(0));
  b.store(out, i, x[i] ^ y[i]);
  std::vector<std::uint32_t> xs(n), ys(n), expected(n);
  for (std::uint32_t k = 0; k < n; ++k) {
    xs[k] = k * 2654435761u;
    ys[k] = ~k;
    expected[k] = xs[k] ^ ys[k];
  }
  std::vector<vyre::host::Bytes> inputs = {vyre::host::as_bytes(xs), vyre::host::as_bytes(ys)};
  for (std::uint32_t workers : {0u, 1u}) {
    vyre::CreateOptions options;
    options.worker_threads = workers;
    auto backend = refcpu_test::make_backend(options);
    auto program = backend.compile(b.build());
    double ms = time_ms(backend, program, inputs, expected);
    std::printf("xor 1M u32, workgroup 256, worker_threads=%u: median %.2f ms per dispatch\n", workers, ms);
  }
  // Conform-sized work: one element through a few ops, many times.
  vyre::ProgramBuilder tiny;
  tiny.workgroup(1);
  auto a = tiny.buffer("a", vyre::Access::Read, vyre::Type::F32);
  auto o = tiny.buffer("o", vyre::Access::Output, vyre::Type::F32, 1);
  tiny.store(o, u32(0), un(vyre::UnOp::Sqrt, a[u32(0)] * a[u32(0)] + f32(1.0f)));
  auto backend = refcpu_test::make_backend();
  std::vector<float> one_value = {3.0f};
  std::vector<vyre::host::Bytes> tiny_inputs = {vyre::host::as_bytes(one_value)};
  const int reps = 20000;
  auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < reps / 10; ++r) backend.compile(tiny.build());
  auto mid = std::chrono::steady_clock::now();
  auto program = backend.compile(tiny.build());
  for (int r = 0; r < reps; ++r) backend.dispatch(program, tiny_inputs);
  auto stop = std::chrono::steady_clock::now();
  std::printf("small program: compile %.2f us, one-invocation dispatch %.2f us\n",
              std::chrono::duration<double, std::micro>(mid - start).count() / (reps / 10),
              std::chrono::duration<double, std::micro>(stop - mid).count() / reps);
  return 0;
}
