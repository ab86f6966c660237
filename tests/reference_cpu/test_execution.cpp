// The execution model (SPEC §2 "Nodes", §3; docs/SEMANTICS.md "Control flow", "Dispatch"): builtins,
// tail guard vs full workgroups, control flow with per-invocation divergence, scoping, barriers and
// workgroup memory, divergent-barrier errors that write nothing, grid_sync phases, fixpoint
// iterations, and workgroup order independence.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "refcpu_harness.hpp"

using namespace refcpu_test;
using namespace vyre::dsl;
using vyre::Access;
using vyre::AtomicOp;
using vyre::Type;

namespace {

// Dispatch into pre-filled output buffers; returns the status and leaves the buffers as written.
vyre_status dispatch_into(const vyre::host::Backend& be, const vyre::Program& program,
                          const std::vector<vyre::host::ByteVector>& inputs,
                          std::vector<vyre::host::ByteVector>& outputs, std::string* message,
                          const vyre::DispatchConfig& config = {}) {
  std::vector<vyre::host::Bytes> in(inputs.begin(), inputs.end());
  std::vector<vyre::host::MutableBytes> out(outputs.begin(), outputs.end());
  try {
    be.dispatch_into(be.compile(program), in, out, config);
    return VYRE_OK;
  } catch (const vyre::Error& e) {
    *message = e.what();
    return e.code();
  }
}

// A program with a counter that every running invocation increments.
vyre::Program counting(bool workgroup_buffer) {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  b.buffer("counter", Access::ReadWrite, Type::U32);
  b.buffer("out", Access::Output, Type::U32, 1000);
  if (workgroup_buffer) b.buffer("scratch", Access::Workgroup, Type::U32, 4);
  b.emit(let("_c", atomic(AtomicOp::Add, "counter", u32(0), u32(1))));
  return b.build();
}

}  // namespace

TEST_CASE("tail guard: invocations at or past N do nothing; full-workgroup mode runs them all") {
  std::vector<vyre::host::ByteVector> in = {bytes_of(std::vector<std::uint32_t>{0})};
  CHECK(values_of<std::uint32_t>(run(counting(false), in)[0])[0] == 1000);
  CHECK(values_of<std::uint32_t>(run(counting(true), in)[0])[0] == 1024);   // workgroup buffer
  CHECK(values_of<std::uint32_t>(run(counting(false), in, grid(3))[0])[0] == 192);  // explicit grid
  CHECK(values_of<std::uint32_t>(run(counting(false), in, elements(65))[0])[0] == 65);
  CHECK(values_of<std::uint32_t>(run(counting(false), in, elements(0))[0])[0] == 0);
}

TEST_CASE("builtins: InvocationId, LocalId, WorkgroupId, NumWorkgroups, SubgroupLane/Size, BufLen") {
  const std::uint32_t wx = 4, wy = 2, wz = 2, gx = 2, gy = 3, gz = 1;
  const std::uint32_t W = wx * gx, H = wy * gy, D = wz * gz, total = W * H * D;
  vyre::ProgramBuilder b;
  b.workgroup(wx, wy, wz);
  auto probe = b.buffer("probe", Access::Read, Type::U16);
  auto out = b.buffer("out", Access::Output, Type::U32, total * 12);
  auto slot = b.let("slot", ((invocation_id(2) * u32(H) + invocation_id(1)) * u32(W) + invocation_id(0)) * u32(12));
  std::vector<vyre::Expr> fields = {local_id(0),       local_id(1),       local_id(2),       workgroup_id(0),
                                    workgroup_id(1),   workgroup_id(2),   num_workgroups(0), num_workgroups(1),
                                    num_workgroups(2), subgroup_lane(),   subgroup_size(),   buf_len("probe")};
  for (std::uint32_t f = 0; f < fields.size(); ++f) b.store(out, slot + u32(f), fields[f]);
  (void)probe;
  auto result = values_of<std::uint32_t>(
      run(b.build(), {bytes_of(std::vector<std::uint16_t>(7))}, grid(gx, gy, gz))[0]);
  for (std::uint32_t z = 0; z < D; ++z)
    for (std::uint32_t y = 0; y < H; ++y)
      for (std::uint32_t x = 0; x < W; ++x) {
        std::uint32_t base = ((z * H + y) * W + x) * 12;
        std::uint32_t lx = x % wx, ly = y % wy, lz = z % wz;
        std::vector<std::uint32_t> expected = {lx, ly, lz, x / wx, y / wy, z / wz, gx, gy, gz,
                                               (lx + ly * wx + lz * wx * wy) % 32, 32, 7};
        INFO("invocation (", x, ", ", y, ", ", z, ")");
        CHECK(std::vector<std::uint32_t>(result.begin() + base, result.begin() + base + 12) == expected);
      }
}

TEST_CASE("divergent control flow: per-invocation loops, early return, masked assignment") {
  const std::uint32_t n = 700;
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto out = b.buffer("out", Access::Output, Type::U32, n);
  auto i = b.let("i", invocation_id(0));
  b.let("acc", u32(1));
  b.loop("j", i % u32(5), i % u32(7) + u32(3), [&](vyre::Expr j) {
    b.if_(eq(j % u32(2), u32(0)), [&] { b.assign("acc", var("acc") + j); },
          [&] { b.assign("acc", var("acc") * u32(3)); });
    b.if_(logical_and(gt(var("acc"), u32(50)), eq(i % u32(3), u32(0))), [&] {
      b.store(out, i, var("acc") + u32(1000));
      b.ret();
    });
  });
  b.store(out, i, var("acc"));
  auto got = values_of<std::uint32_t>(run(b.build(), {})[0]);
  for (std::uint32_t k = 0; k < n; ++k) {
    std::uint32_t acc = 1, result = 0;
    bool returned = false;
    for (std::uint32_t j = k % 5; j < k % 7 + 3 && !returned; ++j) {
      acc = (j % 2 == 0) ? acc + j : acc * 3;
      if (acc > 50 && k % 3 == 0) {
        result = acc + 1000;
        returned = true;
      }
    }
    if (!returned) result = acc;
    INFO("invocation ", k);
    CHECK(got[k] == result);
  }
}

TEST_CASE("let copies values; loop bounds are evaluated once; blocks scope names") {
  vyre::ProgramBuilder b;
  b.workgroup(32);
  auto out = b.buffer("out", Access::Output, Type::U32, 3 * 32);
  auto i = b.let("i", invocation_id(0));
  b.let("a", i);
  auto copy = b.let("copy", var("a"));
  b.assign("a", var("a") + u32(100));
  b.store(out, i * u32(3), copy * u32(1000) + var("a"));
  b.let("n", u32(3));
  b.let("trips", u32(0));
  b.loop("k", u32(0), var("n"), [&](vyre::Expr) {
    b.assign("n", var("n") + u32(1));
    b.assign("trips", var("trips") + u32(1));
  });
  b.store(out, i * u32(3) + u32(1), var("trips") * u32(100) + var("n"));
  b.block([&] { b.let("inner", u32(7)); b.store(out, i * u32(3) + u32(2), var("inner")); });
  b.block([&] { b.let("inner", u32(9)); b.assign("a", var("inner")); });
  auto got = values_of<std::uint32_t>(run(b.build(), {})[0]);
  for (std::uint32_t k = 0; k < 32; ++k) {
    CHECK(got[k * 3] == k * 1000 + k + 100);
    CHECK(got[k * 3 + 1] == 3 * 100 + 6);
    CHECK(got[k * 3 + 2] == 7);
  }
}

TEST_CASE("operands are evaluated left to right, all of them (select, logical ops)") {
  vyre::ProgramBuilder b;
  b.workgroup(1);
  auto m = b.buffer("m", Access::ReadWrite, Type::U32);
  auto out = b.buffer("out", Access::Output, Type::U32, 3);
  b.store(out, u32(0), atomic(AtomicOp::Exchange, "m", u32(0), u32(1)) * u32(10) +
                           atomic(AtomicOp::Exchange, "m", u32(0), u32(2)));
  b.store(out, u32(1), select(boolean(true), atomic(AtomicOp::Add, "m", u32(1), u32(1)),
                              atomic(AtomicOp::Add, "m", u32(2), u32(1))));
  b.store(out, u32(2), cast(Type::U32, logical_and(boolean(false),
                                                   ne(atomic(AtomicOp::Add, "m", u32(3), u32(1)), u32(99)))));
  (void)m;
  auto result = run(b.build(), {bytes_of(std::vector<std::uint32_t>{0, 5, 6, 7})}, elements(1));
  CHECK(values_of<std::uint32_t>(result[0]) == std::vector<std::uint32_t>{2, 6, 7, 8});
  CHECK(values_of<std::uint32_t>(result[1]) == std::vector<std::uint32_t>{1, 5, 0});
}

TEST_CASE("barriers and workgroup memory: a tree reduction per workgroup") {
  const std::uint32_t wg = 256, groups = 37;
  vyre::ProgramBuilder b;
  b.workgroup(wg);
  auto x = b.buffer("x", Access::Read, Type::U32);
  auto sums = b.buffer("sums", Access::Output, Type::U32, groups);
  b.buffer("local", Access::Workgroup, Type::U32, wg);
  auto lid = b.let("lid", local_id(0));
  b.store(vyre::Buf{"local"}, lid, x[invocation_id(0)]);
  b.barrier();
  b.loop("s", u32(0), u32(8), [&](vyre::Expr s) {
    auto stride = b.let("stride", u32(128) >> s);
    b.if_(lt(lid, stride), [&] {
      b.store(vyre::Buf{"local"}, lid, load("local", lid) + load("local", lid + stride));
    });
    b.barrier();
  });
  b.if_(eq(lid, u32(0)), [&] { b.store(sums, workgroup_id(0), load("local", u32(0))); });
  std::vector<std::uint32_t> data(wg * groups);
  std::mt19937 rng(4);
  for (auto& d : data) d = rng() % 1000;
  auto got = values_of<std::uint32_t>(run(b.build(), {bytes_of(data)}, grid(groups))[0]);
  for (std::uint32_t g = 0; g < groups; ++g)
    CHECK(got[g] == std::accumulate(data.begin() + g * wg, data.begin() + (g + 1) * wg, 0u));
}

TEST_CASE("workgroup memory is zero at the start of every workgroup") {
  vyre::ProgramBuilder b;
  b.workgroup(32);
  auto seen = b.buffer("seen", Access::Output, Type::U32, 1024 * 32);  // enough to use the pool
  b.buffer("local", Access::Workgroup, Type::U32, 32);
  auto lid = b.let("lid", local_id(0));
  b.store(seen, invocation_id(0), load("local", lid));
  b.barrier();
  b.store(vyre::Buf{"local"}, lid, workgroup_id(0) + u32(1));
  for (std::uint32_t workers : {1u, 2u}) {
    vyre::CreateOptions options;
    options.worker_threads = workers;
    auto be = make_backend(options);
    auto out = be.dispatch(be.compile(b.build()), {}, grid(1024));
    auto v = values_of<std::uint32_t>(out[0]);
    CHECK(std::all_of(v.begin(), v.end(), [](std::uint32_t x) { return x == 0; }));
  }
}

TEST_CASE("a divergent barrier is VYRE_ERR_EXECUTION and writes no output byte") {
  auto make = [](int variant) {
    vyre::ProgramBuilder b;
    b.workgroup(64);
    auto x = b.buffer("x", Access::ReadWrite, Type::U32);
    auto out = b.buffer("out", Access::Output, Type::U32, 128);
    auto lid = b.let("lid", local_id(0));
    b.store(x, invocation_id(0), u32(1234));
    b.store(out, invocation_id(0), u32(5678));
    if (variant == 0) b.if_(lt(lid, u32(10)), [&] { b.barrier(); });
    if (variant == 1) {
      b.if_(eq(lid, u32(3)), [&] { b.ret(); });
      b.barrier();
    }
    if (variant == 2) b.loop("k", u32(0), lid % u32(3), [&](vyre::Expr) { b.barrier(); });
    if (variant == 3) b.if_(lt(lid, u32(32)), [&] { b.barrier(); }, [&] { b.barrier(); });
    return b.build();
  };
  for (int variant = 0; variant < 4; ++variant) {
    std::vector<vyre::host::ByteVector> in = {vyre::host::ByteVector(512, std::byte{0x11})};
    std::vector<vyre::host::ByteVector> out = {vyre::host::ByteVector(512, std::byte{0xAB}),
                                               vyre::host::ByteVector(512, std::byte{0xCD})};
    std::string message;
    INFO("variant ", variant);
    CHECK(dispatch_into(backend(), make(variant), in, out, &message, grid(2)) == VYRE_ERR_EXECUTION);
    CHECK(message.find("divergent barrier") != std::string::npos);
    CHECK(message.find("body[") != std::string::npos);
    CHECK(message.find("Fix: ") != std::string::npos);
    CHECK(std::all_of(out[0].begin(), out[0].end(), [](std::byte v) { return v == std::byte{0xAB}; }));
    CHECK(std::all_of(out[1].begin(), out[1].end(), [](std::byte v) { return v == std::byte{0xCD}; }));
  }
  // One failing workgroup among many, run on two threads: the same error, nothing written.
  vyre::ProgramBuilder many;
  many.workgroup(64);
  auto many_out = many.buffer("out", Access::Output, Type::U32, 512 * 64);
  many.store(many_out, invocation_id(0), u32(1));
  many.if_(logical_and(eq(workgroup_id(0), u32(300)), lt(local_id(0), u32(5))), [&] { many.barrier(); });
  vyre::CreateOptions two;
  two.worker_threads = 2;
  auto be = make_backend(two);
  std::vector<vyre::host::ByteVector> many_outputs = {vyre::host::ByteVector(512 * 64 * 4, std::byte{0xEE})};
  std::string message;
  CHECK(dispatch_into(be, many.build(), {}, many_outputs, &message, grid(512)) == VYRE_ERR_EXECUTION);
  CHECK(message.find("workgroup [300, 0, 0]") != std::string::npos);
  CHECK(std::all_of(many_outputs[0].begin(), many_outputs[0].end(), [](std::byte v) { return v == std::byte{0xEE}; }));

  // A barrier every invocation reaches in the same loop iteration is fine.
  vyre::ProgramBuilder ok;
  ok.workgroup(64);
  ok.buffer("out", Access::Output, Type::U32, 64);
  ok.loop("k", u32(0), u32(3), [&](vyre::Expr) { ok.barrier(); });
  CHECK(run_status(ok.build(), {}) == VYRE_OK);
}

TEST_CASE("grid_sync: a two-phase prefix sum over many workgroups") {
  const std::uint32_t wg = 64, groups = 40, n = wg * groups;
  vyre::ProgramBuilder b;
  b.workgroup(wg);
  auto x = b.buffer("x", Access::Read, Type::U32);
  auto sums = b.buffer("sums", Access::Output, Type::U32, groups);
  auto out = b.buffer("out", Access::Output, Type::U32, n);
  b.emit(let("_p", atomic(AtomicOp::Add, "sums", workgroup_id(0), x[invocation_id(0)])));
  b.grid_sync();
  auto i = b.let("i", invocation_id(0));
  b.let("acc", u32(0));
  b.loop("g", u32(0), workgroup_id(0), [&](vyre::Expr g) { b.assign("acc", var("acc") + sums[g]); });
  b.loop("j", workgroup_id(0) * u32(wg), i + u32(1), [&](vyre::Expr j) { b.assign("acc", var("acc") + x[j]); });
  b.store(out, i, var("acc"));
  std::vector<std::uint32_t> data(n);
  std::mt19937 rng(8);
  for (auto& d : data) d = rng() % 100;
  std::vector<std::uint32_t> expected(n);
  std::inclusive_scan(data.begin(), data.end(), expected.begin());
  for (bool reverse : {false, true}) {
    vyre::CreateOptions options;
    options.reverse_workgroups = reverse;
    auto be = make_backend(options);
    std::vector<vyre::host::Bytes> inputs = {vyre::host::as_bytes(data)};
    auto result = be.dispatch(be.compile(b.build()), inputs, grid(groups));
    INFO("reverse = ", reverse);
    CHECK(values_of<std::uint32_t>(result[1]) == expected);
  }
}

TEST_CASE("grid_sync: Return ends only the current phase; workgroup memory is zero again after it") {
  vyre::ProgramBuilder b;
  b.workgroup(32);
  auto out = b.buffer("out", Access::Output, Type::U32, 4 * 32);
  auto seen = b.buffer("seen", Access::Output, Type::U32, 4 * 32);
  b.buffer("local", Access::Workgroup, Type::U32, 32);
  b.store(vyre::Buf{"local"}, local_id(0), u32(7));
  b.if_(eq(local_id(0) % u32(2), u32(1)), [&] { b.ret(); });
  b.store(out, invocation_id(0), u32(1));
  b.grid_sync();
  auto i = b.let("i", invocation_id(0));
  b.store(out, i, out[i] + u32(10));
  b.store(seen, i, load("local", local_id(0)));
  auto result = run(b.build(), {}, grid(4));
  auto o = values_of<std::uint32_t>(result[0]);
  auto s = values_of<std::uint32_t>(result[1]);
  for (std::uint32_t k = 0; k < o.size(); ++k) {
    CHECK(o[k] == (k % 2 == 1 ? 10u : 11u));
    CHECK(s[k] == 0u);
  }
}

TEST_CASE("fixpoint iterations run on the same buffers; outputs are zeroed once") {
  vyre::ProgramBuilder b;
  b.workgroup(16);
  auto x = b.buffer("x", Access::Read, Type::U32);
  auto acc = b.buffer("acc", Access::ReadWrite, Type::U32);
  auto count = b.buffer("count", Access::Output, Type::U32, 50);
  auto i = b.let("i", invocation_id(0));
  b.store(acc, i, acc[i] * u32(2) + x[i]);
  b.store(count, i, count[i] + u32(1));
  std::vector<std::uint32_t> xs(50), init(50);
  std::iota(xs.begin(), xs.end(), 1u);
  std::iota(init.begin(), init.end(), 100u);
  vyre::DispatchConfig cfg;
  cfg.fixpoint_iterations = 5;
  auto result = run(b.build(), {bytes_of(xs), bytes_of(init)}, cfg);
  auto a = values_of<std::uint32_t>(result[0]);
  auto c = values_of<std::uint32_t>(result[1]);
  for (std::uint32_t k = 0; k < 50; ++k) {
    std::uint32_t v = init[k];
    for (int it = 0; it < 5; ++it) v = v * 2 + xs[k];
    CHECK(a[k] == v);
    CHECK(c[k] == 5);
  }
}

TEST_CASE("race-free programs give identical results in any workgroup order and thread count") {
  // A mix of control flow, workgroup memory, barriers and atomics whose results do not depend on
  // scheduling.
  const std::uint32_t wg = 128, groups = 300;
  vyre::ProgramBuilder b;
  b.workgroup(wg);
  auto x = b.buffer("x", Access::Read, Type::U32);
  auto out = b.buffer("out", Access::Output, Type::U32, wg * groups);
  auto hist = b.buffer("hist", Access::Output, Type::U32, 16);
  b.buffer("local", Access::Workgroup, Type::U32, wg);
  auto lid = b.let("lid", local_id(0));
  auto i = b.let("i", invocation_id(0));
  b.store(vyre::Buf{"local"}, lid, x[i]);
  b.barrier();
  auto mirror = b.let("mirror", load("local", u32(wg - 1) - lid));
  b.emit(let("_h", atomic(AtomicOp::Add, "hist", mirror % u32(16), u32(1))));
  b.if_(eq(mirror % u32(3), u32(0)), [&] { b.store(out, i, mirror * u32(7)); },
        [&] { b.store(out, i, mirror ^ i); });
  std::vector<std::uint32_t> data(wg * groups);
  std::mt19937 rng(12);
  for (auto& d : data) d = rng();
  std::vector<std::vector<vyre::host::ByteVector>> results;
  for (auto [workers, reverse] : {std::pair{1u, false}, std::pair{2u, false}, std::pair{0u, true}}) {
    vyre::CreateOptions options;
    options.worker_threads = workers;
    options.reverse_workgroups = reverse;
    auto be = make_backend(options);
    std::vector<vyre::host::Bytes> inputs = {vyre::host::as_bytes(data)};
    results.push_back(be.dispatch(be.compile(b.build()), inputs, grid(groups)));
  }
  CHECK(results[0] == results[1]);
  CHECK(results[0] == results[2]);
  auto o = values_of<std::uint32_t>(results[0][0]);
  for (std::uint32_t k = 0; k < o.size(); ++k) {
    std::uint32_t m = data[(k / wg) * wg + (wg - 1 - k % wg)];
    REQUIRE(o[k] == (m % 3 == 0 ? m * 7 : (m ^ k)));
  }
}

TEST_CASE("reverse workgroup order exposes an order-dependent program") {
  vyre::ProgramBuilder b;
  b.workgroup(8);
  auto last = b.buffer("last", Access::Output, Type::U32, 1);
  b.store(last, u32(0), workgroup_id(0));
  std::vector<std::uint32_t> seen;
  for (bool reverse : {false, true}) {
    vyre::CreateOptions options;
    options.worker_threads = 1;
    options.reverse_workgroups = reverse;
    auto be = make_backend(options);
    seen.push_back(values_of<std::uint32_t>(be.dispatch(be.compile(b.build()), {}, grid(50))[0])[0]);
  }
  CHECK(seen[0] == 49);
  CHECK(seen[1] == 0);
}
