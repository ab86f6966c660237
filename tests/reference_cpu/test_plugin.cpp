// The plugin through its C ABI (via the host wrapper): registration, every op id of the catalog
// compiled and run, device profile, async/timed/pipeline agreement with plain dispatch, resident
// buffers and sequences equal to one-by-one dispatch, failure atomicity, metrics, create options.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <atomic>
#include <numeric>
#include <thread>
#include <set>
#include <string>
#include <vector>

#include "refcpu_harness.hpp"
#include "vyre/ops.hpp"

using namespace refcpu_test;
using namespace vyre::dsl;
using vyre::Access;
using vyre::OpFamily;
using vyre::OpInfo;
using vyre::Type;

namespace {

vyre::Expr one(Type t) {
  switch (t) {
    case Type::F32: return f32(1.0f);
    case Type::F64: return f64(1.0);
    case Type::Bool: return boolean(true);
    default: return lit(t, 1);
  }
}

// A small program that uses `op` (and so little else that ops_used shows it).
struct OpProgram {
  vyre::Program program;
  vyre::DispatchConfig config;
};

OpProgram program_for(const OpInfo& op) {
  vyre::ProgramBuilder b;
  OpProgram p;
  b.workgroup(1);
  auto input = [&](const char* name, Type t) { return b.buffer(name, Access::Read, t)[u32(0)]; };
  auto output = [&](Type t) { return b.buffer("out", Access::Output, t, 32); };
  switch (op.family) {
    case OpFamily::Bin: {
      auto a = input("a", op.operands[0]);
      auto c = input("b", op.operands[1]);
      b.store(output(*op.result), u32(0), bin(op.bin_op, a, c));
      break;
    }
    case OpFamily::Un: b.store(output(*op.result), u32(0), un(op.un_op, input("a", op.type))); break;
    case OpFamily::Cast: b.store(output(op.type), u32(0), cast(op.type, input("a", op.from))); break;
    case OpFamily::Bitcast: b.store(output(op.type), u32(0), bitcast(op.type, input("a", op.from))); break;
    case OpFamily::Fma: {
      auto a = input("a", op.type);
      auto c = input("b", op.type);
      auto d = input("c", op.type);
      b.store(output(op.type), u32(0), fma(a, c, d));
      break;
    }
    case OpFamily::Select: {
      auto c = input("c", Type::Bool);
      auto x = input("x", op.type);
      auto y = input("y", op.type);
      b.store(output(op.type), u32(0), select(c, x, y));
      break;
    }
    case OpFamily::Load: b.store(output(vyre::widen(op.type)), u32(0), input("a", op.type)); break;
    case OpFamily::Store: b.store(output(op.type), u32(0), input("a", vyre::widen(op.type))); break;
    case OpFamily::Atomic: {
      auto out = output(op.type);
      std::string target = "out";
      if (op.workgroup_atomic) {
        b.buffer("local", Access::Workgroup, op.type, 4);
        target = "local";
      }
      vyre::Expr e = op.atomic_op == vyre::AtomicOp::CompareExchange
                         ? compare_exchange(target, u32(0), lit(op.type, 0), one(op.type))
                         : atomic(op.atomic_op, target, u32(0), one(op.type));
      b.store(out, u32(1), e);
      break;
    }
    case OpFamily::Subgroup: {
      b.workgroup(32);
      if (op.subgroup == vyre::SubgroupKind::Ballot) {
        b.store(output(Type::U32), local_id(0), ballot(eq(local_id(0) % u32(2), u32(0))));
      } else if (op.subgroup == vyre::SubgroupKind::Shuffle) {
        auto x = input("x", op.type);
        b.store(output(op.type), local_id(0), shuffle(x, u32(3)));
      } else {
        auto x = input("x", op.type);
        b.store(output(op.type), local_id(0), reduce(op.reduce_op, x));
      }
      break;
    }
    case OpFamily::Builtin: {
      auto out = output(Type::U32);
      auto x = b.buffer("x", Access::Read, Type::U32);
      vyre::Expr e;
      switch (op.builtin) {
        case vyre::Builtin::InvocationId: e = invocation_id(0); break;
        case vyre::Builtin::LocalId: e = local_id(0); break;
        case vyre::Builtin::WorkgroupId: e = workgroup_id(0); break;
        case vyre::Builtin::NumWorkgroups: e = num_workgroups(0); break;
        case vyre::Builtin::SubgroupLane: e = subgroup_lane(); break;
        case vyre::Builtin::SubgroupSize: e = subgroup_size(); break;
        case vyre::Builtin::BufLen: e = x.len(); break;
      }
      b.store(out, u32(0), e);
      break;
    }
    case OpFamily::NodeOp: {
      auto out = output(Type::U32);
      if (op.grid_sync_node) {
        b.store(out, u32(0), u32(1));
        b.grid_sync();
        b.store(out, u32(1), out[u32(0)]);
      } else if (op.node == vyre::NodeKind::Barrier) {
        b.barrier();
      } else if (op.node == vyre::NodeKind::Let || op.node == vyre::NodeKind::Assign) {
        b.let("v", u32(1));
        b.assign("v", var("v") + u32(1));
        b.store(out, u32(0), var("v"));
      } else if (op.node == vyre::NodeKind::If) {
        b.if_(boolean(true), [&] { b.store(out, u32(0), u32(1)); });
      } else if (op.node == vyre::NodeKind::Loop) {
        b.loop("k", u32(0), u32(3), [&](vyre::Expr k) { b.store(out, k, k); });
      } else if (op.node == vyre::NodeKind::Return) {
        b.ret();
      } else {
        b.block([&] { b.store(out, u32(0), u32(1)); });
      }
      break;
    }
    case OpFamily::Mem: {
      auto out = output(Type::U32);
      b.buffer("local", Access::Workgroup, Type::U32, 4);
      b.store(out, u32(0), load("local", u32(0)));
      break;
    }
    case OpFamily::Dispatch: {
      auto out = output(Type::U32);
      b.store(out, u32(0), out[u32(0)] + u32(1));
      p.config.fixpoint_iterations = 3;
      break;
    }
  }
  p.program = b.build();
  if (!p.config.dispatch_elements) p.config.dispatch_elements = 1;
  return p;
}

std::vector<vyre::host::ByteVector> zero_inputs(const vyre::Program& program) {
  std::vector<vyre::host::ByteVector> inputs;
  for (std::size_t i : program.input_indices())
    inputs.emplace_back(vyre::byte_size(program.buffers[i].element));
  return inputs;
}

vyre::Program saxpy_like() {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto x = b.buffer("x", Access::Read, Type::U32);
  auto acc = b.buffer("acc", Access::ReadWrite, Type::U32);
  auto i = b.let("i", invocation_id(0));
  b.store(acc, i, acc[i] * u32(3) + x[i]);
  return b.build();
}

}  // namespace

TEST_CASE("registration: id, rank, capabilities and the whole op catalog") {
  const vyre_backend_info& info = plugin_info();
  CHECK(std::string(info.id) == "reference_cpu");
  CHECK(info.rank == 900);
  CHECK(info.abi_major == VYRE_ABI_VERSION_MAJOR);
  const std::uint64_t expected = VYRE_CAP_DISPATCH | VYRE_CAP_ASYNC | VYRE_CAP_TIMED | VYRE_CAP_RESIDENT |
                                 VYRE_CAP_SEQUENCE | VYRE_CAP_COMPILED_PIPELINE | VYRE_CAP_F16 | VYRE_CAP_BF16 |
                                 VYRE_CAP_F64 | VYRE_CAP_INT64 | VYRE_CAP_SUBGROUP | VYRE_CAP_GRID_SYNC |
                                 VYRE_CAP_ATOMICS | VYRE_CAP_REFERENCE_ORACLE |
                                 VYRE_CAP_EXTERNAL_MEMORY | VYRE_CAP_DEADLINE | VYRE_CAP_CANCEL;
  CHECK(info.capabilities == expected);
  std::set<std::string> declared;
  for (std::size_t i = 0; i < info.op_count; ++i) declared.insert(info.op_ids[i]);
  std::set<std::string> catalog;
  for (const OpInfo& op : vyre::op_catalog()) catalog.insert(op.id);
  CHECK(declared == catalog);
}

TEST_CASE("every op id of the catalog compiles and runs") {
  std::size_t ran = 0;
  for (const OpInfo& op : vyre::op_catalog()) {
    OpProgram p = program_for(op);
    auto used = vyre::ops_used(p.program, p.config);
    INFO("op ", op.id);
    REQUIRE(std::find(used.begin(), used.end(), op.id) != used.end());
    std::string message;
    CHECK(run_status(p.program, zero_inputs(p.program), p.config, &message) == VYRE_OK);
    INFO(message);
    ++ran;
  }
  CHECK(ran == vyre::op_catalog().size());
}

TEST_CASE("device profile describes the CPU") {
  vyre_device_profile profile = backend().device_profile();
  CHECK(profile.kind == VYRE_DEVICE_KIND_CPU);
  CHECK(std::string(profile.name) == "cpu");
  CHECK(profile.subgroup_width == 32);
  CHECK(profile.max_threads_per_workgroup == 1024);
  CHECK(profile.multiprocessors >= 1);
  CHECK(profile.cooperative_launch == 1);
}

TEST_CASE("async, timed and pipeline dispatch agree with plain dispatch") {
  auto program = backend().compile(saxpy_like());
  std::vector<std::uint32_t> x(5000), acc(5000);
  std::iota(x.begin(), x.end(), 0u);
  std::iota(acc.begin(), acc.end(), 7u);
  std::vector<vyre::host::Bytes> inputs = {vyre::host::as_bytes(x), vyre::host::as_bytes(acc)};
  auto plain = backend().dispatch(program, inputs);
  auto pending = backend().dispatch_async(program, inputs);
  CHECK(pending.wait() == plain);
  auto timed = backend().dispatch_timed(program, inputs);
  CHECK(timed.outputs == plain);
  CHECK(timed.timing.wall_ns > 0);
  CHECK_FALSE(timed.timing.has_device_ns);
  auto pipeline = backend().pipeline(program);
  CHECK(pipeline.dispatch(inputs) == plain);
  CHECK(values_of<std::uint32_t>(plain[0])[10] == 17u * 3 + 10);
}

TEST_CASE("an execution error of an async dispatch surfaces when it is waited for") {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  b.buffer("out", Access::Output, Type::U32, 64);
  b.if_(lt(local_id(0), u32(3)), [&] { b.barrier(); });
  auto program = backend().compile(b.build());
  vyre_status code = VYRE_OK;
  try {
    backend().dispatch_async(program, {}).wait();
  } catch (const vyre::Error& e) {
    code = e.code();
  }
  CHECK(code == VYRE_ERR_EXECUTION);
}

TEST_CASE("resident buffers and sequences equal one-by-one host dispatch") {
  const std::uint32_t n = 3000;
  auto be = make_backend();
  auto step = be.compile(saxpy_like());
  std::vector<std::uint32_t> x(n), acc(n);
  for (std::uint32_t k = 0; k < n; ++k) {
    x[k] = k * 17u;
    acc[k] = k;
  }
  // Host reference: prefix once, then the step 4 more times.
  std::vector<std::uint32_t> expected = acc;
  for (int r = 0; r < 5; ++r) {
    std::vector<vyre::host::Bytes> inputs = {vyre::host::as_bytes(x), vyre::host::as_bytes(expected)};
    expected = values_of<std::uint32_t>(be.dispatch(step, inputs)[0]);
  }
  auto rx = be.alloc(n * 4);
  auto racc = be.alloc(n * 4);
  CHECK(be.download(racc, 0, n * 4) == vyre::host::ByteVector(n * 4));  // zero at allocation
  be.upload(rx, 0, vyre::host::as_bytes(x));
  be.upload(racc, 0, vyre::host::as_bytes(acc));
  vyre::host::Sequence seq;
  seq.prefix.push_back({step, {}, {rx, racc}});
  seq.repeated.push_back({step, {}, {rx, racc}});
  seq.repeat_count = 4;
  std::vector<std::uint32_t> read_back(n);
  seq.reads.push_back({racc, 0, std::as_writable_bytes(std::span(read_back))});
  be.sequence(seq);
  CHECK(read_back == expected);

  // The same again, step by step, with resident dispatches (sync, async, timed).
  be.upload(racc, 0, vyre::host::as_bytes(acc));
  std::vector<vyre::host::Binding> bindings = {vyre::host::Binding::of(rx), vyre::host::Binding::of(racc)};
  be.dispatch_resident(step, bindings);
  be.dispatch_resident_async(step, bindings).wait();
  auto timing = be.dispatch_resident_timed(step, bindings);
  CHECK_FALSE(timing.has_device_ns);
  be.dispatch_resident(step, bindings);
  be.dispatch_resident(step, bindings);
  CHECK(values_of<std::uint32_t>(be.download(racc, 0, n * 4)) == expected);

  // A read buffer bound to host bytes.
  be.upload(racc, 0, vyre::host::as_bytes(acc));
  std::vector<vyre::host::Binding> mixed = {vyre::host::Binding::host_bytes(vyre::host::as_bytes(x)),
                                            vyre::host::Binding::of(racc)};
  be.dispatch_resident(step, mixed);
  std::vector<vyre::host::Bytes> inputs = {vyre::host::as_bytes(x), vyre::host::as_bytes(acc)};
  CHECK(be.download(racc, 0, n * 4) == be.dispatch(step, inputs)[0]);
}

TEST_CASE("resident output buffers are used as they are, not zero-filled") {
  vyre::ProgramBuilder b;
  b.workgroup(8);
  auto out = b.buffer("out", Access::Output, Type::U32, 8);
  auto i = b.let("i", invocation_id(0));
  b.store(out, i, out[i] + u32(1));
  auto be = make_backend();
  auto program = be.compile(b.build());
  auto buffer = be.alloc(32);
  std::vector<vyre::host::Binding> bindings = {vyre::host::Binding::of(buffer)};
  be.dispatch_resident(program, bindings);
  be.dispatch_resident(program, bindings);
  CHECK(values_of<std::uint32_t>(be.download(buffer, 0, 32)) == std::vector<std::uint32_t>(8, 2));
}

TEST_CASE("a failing resident dispatch leaves resident buffers untouched; aliasing bindings share memory") {
  vyre::ProgramBuilder b;
  b.workgroup(32);
  auto src = b.buffer("src", Access::Read, Type::U32);
  auto dst = b.buffer("dst", Access::ReadWrite, Type::U32);
  auto i = b.let("i", invocation_id(0));
  b.store(dst, i, src[i] + u32(100));
  b.barrier();
  b.if_(lt(local_id(0), u32(5)), [&] { b.barrier(); });
  auto be = make_backend();
  auto failing = be.compile(b.build());
  auto buffer = be.alloc(32 * 4);
  std::vector<std::uint32_t> init(32, 9);
  be.upload(buffer, 0, vyre::host::as_bytes(init));
  std::vector<vyre::host::Binding> bindings = {vyre::host::Binding::of(buffer), vyre::host::Binding::of(buffer)};
  vyre_status code = VYRE_OK;
  try {
    be.dispatch_resident(failing, bindings);
  } catch (const vyre::Error& e) {
    code = e.code();
  }
  CHECK(code == VYRE_ERR_EXECUTION);
  CHECK(values_of<std::uint32_t>(be.download(buffer, 0, 128)) == init);

  // Without the divergent barrier, src and dst alias one buffer: dst[i] = src[i] + 100 in place.
  vyre::ProgramBuilder ok;
  ok.workgroup(32);
  auto s2 = ok.buffer("src", Access::Read, Type::U32);
  auto d2 = ok.buffer("dst", Access::ReadWrite, Type::U32);
  auto j = ok.let("i", invocation_id(0));
  ok.store(d2, j, s2[j] + u32(100));
  ok.barrier();
  ok.store(d2, j, s2[(j + u32(1)) % u32(32)]);  // reads the aliased, already updated element
  be.dispatch_resident(be.compile(ok.build()), bindings);
  CHECK(values_of<std::uint32_t>(be.download(buffer, 0, 128)) == std::vector<std::uint32_t>(32, 109));
}

TEST_CASE("metrics count dispatches, workgroups and invocations; reset zeroes them") {
  auto be = make_backend();
  auto program = be.compile(saxpy_like());
  be.reset_metrics();
  std::vector<std::uint32_t> x(1000), acc(1000);
  std::vector<vyre::host::Bytes> inputs = {vyre::host::as_bytes(x), vyre::host::as_bytes(acc)};
  be.dispatch(program, inputs);
  be.dispatch(program, inputs);
  auto value = [&](const std::string& name) {
    for (const auto& m : be.metrics())
      if (m.name == name) return m.value;
    return ~std::uint64_t{0};
  };
  CHECK(value("dispatches") == 2);
  CHECK(value("workgroups") == 2 * 16);
  CHECK(value("invocations") == 2 * 1000);
  CHECK(value("bytes_in") == 2 * 8000);
  be.reset_metrics();
  CHECK(value("dispatches") == 0);
}

TEST_CASE("create options: device ordinal and memory budget") {
  vyre::CreateOptions bad;
  bad.device_ordinal = 1;
  vyre_status code = VYRE_OK;
  try {
    make_backend(bad);
  } catch (const vyre::Error& e) {
    code = e.code();
  }
  CHECK(code == VYRE_ERR_NO_DEVICE);

  vyre::CreateOptions budget;
  budget.memory_budget_bytes = 1000;
  auto be = make_backend(budget);
  auto a = be.alloc(600);
  code = VYRE_OK;
  std::string message;
  try {
    be.alloc(600);
  } catch (const vyre::Error& e) {
    code = e.code();
    message = e.what();
  }
  CHECK(code == VYRE_ERR_OUT_OF_MEMORY);
  CHECK(message.find("400") != std::string::npos);  // the bytes still available
  a.free();
  CHECK(be.alloc(600).byte_len() == 600);
}

TEST_CASE("many threads may dispatch on one instance at once") {
  auto be = make_backend();
  auto program = be.compile(saxpy_like());
  std::vector<std::uint32_t> x(20000), acc(20000);
  std::iota(x.begin(), x.end(), 1u);
  std::vector<vyre::host::Bytes> inputs = {vyre::host::as_bytes(x), vyre::host::as_bytes(acc)};
  auto expected = be.dispatch(program, inputs);
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int r = 0; r < 10; ++r)
        if (be.dispatch(program, inputs) != expected) ++mismatches;
    });
  for (auto& t : threads) t.join();
  CHECK(mismatches.load() == 0);
}
