// Load: many threads hammer ONE backend instance (reference_cpu unless VYRE_LOAD_BACKEND says)
// with every kind of call at once (host dispatch, async, timed, into caller buffers, resident
// upload/dispatch/download, resident async and timed, sequences, pipelines with and without the
// output cache, fresh compiles, and calls that must fail) and every result is checked against a
// value computed here. At the end no resident memory is left and nothing failed at run time.
//
// VYRE_LOAD_THREADS (default 8) and VYRE_LOAD_OPS (operations per thread, default 10000) scale it
// (the valgrind run in scripts/ci-sanitize.sh uses small values).
#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>

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

constexpr std::uint32_t kWorkgroups = 4;  // of the workgroup-sum program
constexpr std::uint32_t kWorkgroupSize = 64;
constexpr std::uint32_t kCachedSumLength = 16;  // the cached pipeline's fixed dispatch size

std::uint64_t env_count(const char* name, std::uint64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  return std::strtoull(text, nullptr, 10);
}

ByteVector bytes_of(const Words& words) {
  ByteVector out(words.size() * 4);
  if (!out.empty()) std::memcpy(out.data(), words.data(), out.size());
  return out;
}

Words words_of(const ByteVector& bytes) {
  Words out(bytes.size() / 4);
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * 4);
  return out;
}

// x[i] = x[i] * k[0] + a[i]
vyre::Program axpy_program() {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  vyre::Buf x = b.buffer("x", Access::ReadWrite, Type::U32);
  vyre::Buf a = b.buffer("a", Access::Read, Type::U32);
  vyre::Buf k = b.buffer("k", Access::Uniform, Type::U32, 1);
  vyre::Expr i = b.let("i", invocation_id(0));
  b.store(x, i, x[i] * k[u32(0)] + a[i]);
  return b.build();
}

// total[0] = sum of v (atomic adds, wrapping)
vyre::Program sum_program() {
  vyre::ProgramBuilder b;
  b.workgroup(32);
  vyre::Buf v = b.buffer("v", Access::Read, Type::U32);
  b.buffer("total", Access::Output, Type::U32, 1);
  vyre::Expr i = b.let("i", invocation_id(0));
  b.let("old", atomic(vyre::AtomicOp::Add, "total", u32(0), v[i]));
  return b.build();
}

// out[w] = sum of data[w*64 .. w*64+63], through workgroup memory and a barrier
vyre::Program workgroup_sum_program() {
  vyre::ProgramBuilder b;
  b.workgroup(kWorkgroupSize);
  vyre::Buf data = b.buffer("data", Access::Read, Type::U32, kWorkgroups * kWorkgroupSize);
  vyre::Buf out = b.buffer("out", Access::Output, Type::U32, kWorkgroups);
  vyre::Buf scratch = b.buffer("scratch", Access::Workgroup, Type::U32, kWorkgroupSize);
  vyre::Expr lid = b.let("lid", local_id(0));
  b.store(scratch, lid, data[invocation_id(0)]);
  b.barrier();
  b.if_(eq(lid, u32(0)), [&] {
    b.let("s", u32(0));
    b.loop("j", u32(0), u32(kWorkgroupSize), [&](vyre::Expr j) { b.assign("s", var("s") + scratch[j]); });
    b.store(out, workgroup_id(0), var("s"));
  });
  return b.build();
}

// x[i] = (x[i] ^ k[0]) + 1
vyre::Program step_program() {
  vyre::ProgramBuilder b;
  b.workgroup(32);
  vyre::Buf x = b.buffer("x", Access::ReadWrite, Type::U32);
  vyre::Buf k = b.buffer("k", Access::Uniform, Type::U32, 1);
  vyre::Expr i = b.let("i", invocation_id(0));
  b.store(x, i, (x[i] ^ k[u32(0)]) + u32(1));
  return b.build();
}

// out[i] = i * 3 + c (compiled fresh, per thread and iteration)
vyre::Program constant_program(std::uint32_t c) {
  vyre::ProgramBuilder b;
  b.workgroup(16);
  vyre::Buf out = b.buffer("out", Access::Output, Type::U32, 40);
  vyre::Expr i = b.let("i", invocation_id(0));
  b.store(out, i, i * u32(3) + u32(c));
  return b.build();
}

struct Shared {
  vyre::host::Backend backend;
  vyre::host::Program axpy, sum, wgsum, step;
  vyre::host::Pipeline axpy_pipeline, sum_cached_pipeline;
};

// One worker thread's state: its generator and the first failures it saw.
class Worker {
 public:
  Worker(const Shared& shared, std::uint32_t seed) : s_(shared), rng_(seed), seed_(seed) {}

  void run(std::uint64_t operations) {
    for (std::uint64_t op = 0; op < operations && failures_.size() < 5; ++op) {
      try {
        one(op);
      } catch (const std::exception& e) {
        fail(fmt::format("operation {} threw: {}", op, e.what()));
      }
    }
  }

  const std::vector<std::string>& failures() const { return failures_; }
  std::uint64_t checked() const { return checked_; }

 private:
  void one(std::uint64_t op) {
    switch (rng_() % 12) {
      case 0: return host_axpy(false);
      case 1: return host_axpy(true);
      case 2: return timed_sum();
      case 3: return workgroup_sum_into();
      case 4: return resident_step(0);
      case 5: return resident_step(1);
      case 6: return resident_step(2);
      case 7: return sequence();
      case 8: return pipeline_axpy();
      case 9: return cached_sum();
      case 10: return must_fail();
      default: return fresh_compile(op);
    }
  }

  void fail(std::string what) { failures_.push_back(fmt::format("thread {}: {}", seed_, what)); }

  void expect(bool ok, const char* what) {
    ++checked_;
    if (!ok) fail(what);
  }

  Words random_words(std::size_t n) {
    Words w(n);
    for (auto& x : w) x = static_cast<std::uint32_t>(rng_());
    return w;
  }

  std::size_t length() { return 1 + rng_() % 300; }

  void host_axpy(bool async) {
    const std::size_t n = length();
    const Words x = random_words(n), a = random_words(n), k = {static_cast<std::uint32_t>(rng_())};
    const ByteVector bx = bytes_of(x), ba = bytes_of(a), bk = bytes_of(k);
    const Bytes inputs[] = {bx, ba, bk};
    std::vector<ByteVector> out = async ? s_.backend.dispatch_async(s_.axpy, inputs).wait()
                                        : s_.backend.dispatch(s_.axpy, inputs);
    Words expected(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = x[i] * k[0] + a[i];
    expect(out.size() == 1 && words_of(out[0]) == expected, async ? "async axpy" : "axpy");
  }

  void timed_sum() {
    const Words v = random_words(length());
    const ByteVector bv = bytes_of(v);
    const Bytes inputs[] = {bv};
    vyre::DispatchConfig config;
    config.dispatch_elements = v.size();  // N would be the output's 1 element otherwise
    vyre::host::TimedOutputs timed = s_.backend.dispatch_timed(s_.sum, inputs, config);
    std::uint32_t expected = 0;
    for (std::uint32_t x : v) expected += x;
    expect(timed.outputs.size() == 1 && words_of(timed.outputs[0]) == Words{expected}, "timed sum");
  }

  void workgroup_sum_into() {
    const Words data = random_words(kWorkgroups * kWorkgroupSize);
    const ByteVector bd = bytes_of(data);
    const Bytes inputs[] = {bd};
    Words out(kWorkgroups, 0xdeadbeef);
    const vyre::host::MutableBytes targets[] = {std::as_writable_bytes(std::span(out))};
    vyre::DispatchConfig config;
    config.grid = {kWorkgroups, 1, 1};  // N is the output's kWorkgroups elements otherwise
    const std::vector<std::size_t> written = s_.backend.dispatch_into(s_.wgsum, inputs, targets, config);
    Words expected(kWorkgroups, 0);
    for (std::size_t i = 0; i < data.size(); ++i) expected[i / kWorkgroupSize] += data[i];
    expect(written == std::vector<std::size_t>{kWorkgroups * 4} && out == expected, "workgroup sum into");
  }

  static Words stepped(Words x, std::uint32_t k, std::uint64_t times) {
    for (std::uint64_t t = 0; t < times; ++t)
      for (auto& v : x) v = (v ^ k) + 1;
    return x;
  }

  // mode 0: dispatch_resident, 1: async, 2: timed. k is bound as host bytes.
  void resident_step(int mode) {
    const Words x = random_words(length());
    const Words k = {static_cast<std::uint32_t>(rng_())};
    vyre::host::ResidentBuffer buffer = s_.backend.alloc(x.size() * 4);
    s_.backend.upload(buffer, 0, vyre::host::as_bytes(x));
    const vyre::host::Binding bindings[] = {vyre::host::Binding::of(buffer),
                                            vyre::host::Binding::host_bytes(vyre::host::as_bytes(k))};
    if (mode == 0) s_.backend.dispatch_resident(s_.step, bindings);
    if (mode == 1) s_.backend.dispatch_resident_async(s_.step, bindings).wait();
    if (mode == 2) s_.backend.dispatch_resident_timed(s_.step, bindings);
    const ByteVector back = s_.backend.download(buffer, 0, x.size() * 4);
    buffer.free();
    expect(words_of(back) == stepped(x, k[0], 1), "resident step");
  }

  void sequence() {
    const Words x = random_words(length());
    const Words k = {static_cast<std::uint32_t>(rng_())};
    const std::uint64_t repeat = 1 + rng_() % 3;
    const std::uint64_t sizes[] = {x.size() * 4, 4};
    std::vector<vyre::host::ResidentBuffer> buffers = s_.backend.alloc_many(sizes);
    const vyre::host::ResidentWrite writes[] = {{buffers[0], 0, vyre::host::as_bytes(x)},
                                                {buffers[1], 0, vyre::host::as_bytes(k)}};
    s_.backend.upload(writes);
    Words back(x.size());
    vyre::host::Sequence seq;
    seq.prefix = {{s_.step, {}, buffers}};
    seq.repeated = {{s_.step, {}, buffers}};
    seq.repeat_count = repeat;
    seq.reads = {{buffers[0], 0, std::as_writable_bytes(std::span(back))}};
    s_.backend.sequence(seq);
    for (auto& b : buffers) b.free();
    expect(back == stepped(x, k[0], 1 + repeat), "sequence");
  }

  void pipeline_axpy() {
    const std::size_t n = length();
    const Words x = random_words(n), a = random_words(n), k = {static_cast<std::uint32_t>(rng_())};
    const ByteVector bx = bytes_of(x), ba = bytes_of(a), bk = bytes_of(k);
    const Bytes inputs[] = {bx, ba, bk};
    const std::vector<ByteVector> out = s_.axpy_pipeline.dispatch(inputs);
    Words expected(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = x[i] * k[0] + a[i];
    expect(out.size() == 1 && words_of(out[0]) == expected, "pipeline axpy");
  }

  // Few distinct inputs, so that the output cache hits (and must still return the right sums).
  void cached_sum() {
    const std::uint32_t pick = static_cast<std::uint32_t>(rng_() % 4);
    const Words v(kCachedSumLength, pick * 7 + 1);
    const ByteVector bv = bytes_of(v);
    const Bytes inputs[] = {bv};
    const std::vector<ByteVector> out = s_.sum_cached_pipeline.dispatch(inputs);
    expect(out.size() == 1 && words_of(out[0]) == Words{static_cast<std::uint32_t>(v.size()) * v[0]},
           "cached pipeline sum");
  }

  // Bad calls in the middle of the load: each fails with its code and disturbs nothing.
  void must_fail() {
    const Words x(4, 1), a(4, 1);
    const ByteVector bx = bytes_of(x), ba = bytes_of(a), bad_k = bytes_of(Words{1, 2});
    const Bytes inputs[] = {bx, ba, bad_k};  // k is declared with count 1: 8 bytes is wrong
    expect(status_of([&] { s_.backend.dispatch(s_.axpy, inputs); }) == VYRE_ERR_INVALID_ARGUMENT,
           "wrong input size is INVALID_ARGUMENT");
    vyre::host::ResidentBuffer freed = s_.backend.alloc(16);
    freed.free();
    expect(status_of([&] { s_.backend.download(freed, 0, 16); }) == VYRE_ERR_INVALID_HANDLE,
           "a freed resident buffer is INVALID_HANDLE");
    vyre::host::ResidentBuffer small = s_.backend.alloc(8);
    expect(status_of([&] { s_.backend.download(small, 4, 8); }) == VYRE_ERR_INVALID_ARGUMENT,
           "a read past the end is INVALID_ARGUMENT");
    small.free();
  }

  template <class F>
  static vyre_status status_of(F&& call) {
    try {
      call();
      return VYRE_OK;
    } catch (const vyre::Error& e) {
      return e.code();
    }
  }

  void fresh_compile(std::uint64_t op) {
    const std::uint32_t c = static_cast<std::uint32_t>(seed_ * 1000003u + op);
    vyre::host::Program program = s_.backend.compile(constant_program(c));
    const std::vector<ByteVector> out = s_.backend.dispatch(program, {});
    Words expected(40);
    for (std::uint32_t i = 0; i < 40; ++i) expected[i] = i * 3 + c;
    expect(out.size() == 1 && words_of(out[0]) == expected, "fresh compile");
  }

  const Shared& s_;
  std::mt19937_64 rng_;
  std::uint32_t seed_;
  std::vector<std::string> failures_;
  std::uint64_t checked_ = 0;
};

std::uint64_t metric(const vyre::host::Backend& backend, std::string_view name) {
  for (const vyre::host::Metric& m : backend.metrics())
    if (m.name == name) return m.value;
  return ~0ull;
}

}  // namespace

// VYRE_LOAD_BACKEND picks the backend under load (default reference_cpu; scripts/gpu-test.sh runs
// it on cuda). A backend that cannot run here fails the case: it was asked for by name.
TEST_CASE("one backend instance under mixed load from many threads gives exact results") {
  vyre::Registry registry(vyre::test::build_plugin_options());
  const char* chosen = std::getenv("VYRE_LOAD_BACKEND");
  const std::string backend_id = chosen != nullptr && *chosen != '\0' ? chosen : "reference_cpu";
  if (auto why_not = registry.probe(backend_id)) {
    FAIL("backend '" << backend_id << "' (VYRE_LOAD_BACKEND) cannot run here: " << *why_not);
  }
  Shared s;
  s.backend = registry.create(backend_id);
  s.axpy = s.backend.compile(axpy_program());
  s.sum = s.backend.compile(sum_program());
  s.wgsum = s.backend.compile(workgroup_sum_program());
  s.step = s.backend.compile(step_program());
  s.axpy_pipeline = s.backend.pipeline(s.axpy);
  vyre::DispatchConfig cached_config;
  cached_config.dispatch_elements = kCachedSumLength;
  s.sum_cached_pipeline = s.backend.pipeline(s.sum, cached_config, VYRE_PIPELINE_CACHE_OUTPUTS);

  const std::uint64_t threads = env_count("VYRE_LOAD_THREADS", 8);
  const std::uint64_t operations = env_count("VYRE_LOAD_OPS", 10000);
  std::vector<Worker> workers;
  for (std::uint64_t t = 0; t < threads; ++t) workers.emplace_back(s, static_cast<std::uint32_t>(t + 1));
  std::vector<std::thread> running;
  for (Worker& w : workers) running.emplace_back([&w, operations] { w.run(operations); });
  for (std::thread& t : running) t.join();

  std::uint64_t checked = 0;
  for (const Worker& w : workers) {
    checked += w.checked();
    for (const std::string& f : w.failures()) FAIL_CHECK(f);
  }
  MESSAGE(threads << " threads x " << operations << " operations: " << checked << " results checked");
  CHECK(checked >= threads * operations);
  if (backend_id == "reference_cpu") {  // its own counters: nothing left resident, no run-time error
    CHECK(metric(s.backend, "resident_bytes") == 0);
    CHECK(metric(s.backend, "execution_errors") == 0);
  }
}
