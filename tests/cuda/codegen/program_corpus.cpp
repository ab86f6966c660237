// Building the test corpus.
#include "program_corpus.hpp"

#include <algorithm>

#include "vyre/builder.hpp"
#include "vyre/conform/op_programs.hpp"

namespace ptx_test {

namespace {

using namespace vyre::dsl;
using vyre::Access;
using vyre::Type;

constexpr std::uint32_t kCases = 3;

vyre::Program grid_sync_phases() {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto data = b.buffer("data", Access::ReadWrite, Type::U32, 256);
  auto scratch = b.buffer("scratch", Access::Workgroup, Type::F32, 64);
  auto bytes = b.buffer("bytes", Access::Workgroup, Type::U8, 7);
  auto i = b.let("i", invocation_id(0));
  b.store(scratch, local_id(0), cast(Type::F32, data[i]));
  b.store(bytes, local_id(0), u32(3));
  b.barrier();
  b.if_(ge(i, u32(200)), [&] { b.ret(); });
  b.store(data, i, cast(Type::U32, scratch[u32(63) - local_id(0)]) + bytes[u32(1)]);
  b.grid_sync();
  auto j = b.let("j", invocation_id(0));
  b.loop("k", u32(0), u32(4), [&](vyre::Expr k) {
    b.if_(eq(k, u32(2)), [&] { b.ret(); });
    b.store(data, j, data[j] + k);
  });
  b.grid_sync();
  b.store(data, invocation_id(0), data[invocation_id(0)] * u32(3));
  return b.build();
}

vyre::Program nested_control_flow() {
  vyre::ProgramBuilder b;
  b.workgroup(32);
  auto in = b.buffer("in", Access::Read, Type::I32);
  auto out = b.buffer("out", Access::Output, Type::I64, 128);
  auto flags = b.buffer("flags", Access::ReadWrite, Type::Bool);
  auto i = b.let("i", invocation_id(0));
  b.let("acc", i64(0));
  b.loop("a", u32(0), in.len(), [&](vyre::Expr a) {
    b.loop("c", a, u32(5), [&](vyre::Expr c) {
      b.if_(
          gt(in[a], i32(0)),
          [&] { b.assign("acc", var("acc") + cast(Type::I64, in[c])); },
          [&] {
            b.if_(flags[a], [&] { b.assign("acc", var("acc") - i64(1)); });
          });
    });
  });
  b.store(flags, i, un(vyre::UnOp::LogicalNot, eq(var("acc"), i64(0))));
  b.store(out, cast(Type::U32, in[i]), var("acc"));
  b.store(out, bitcast(Type::U32, in[i]), select(flags[i], var("acc"), i64(-7)));
  return b.build();
}

vyre::Program narrow_storage() {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto h = b.buffer("h", Access::ReadWrite, Type::F16);
  auto bf = b.buffer("bf", Access::ReadWrite, Type::BF16);
  auto s8 = b.buffer("s8", Access::ReadWrite, Type::I8);
  auto u16b = b.buffer("u16b", Access::ReadWrite, Type::U16);
  auto i = b.let("i", invocation_id(0));
  auto x = b.let("x", h[i] + bf[i]);
  b.store(h, i, x);
  b.store(bf, i, x * f32(3.0f));
  b.store(s8, i, s8[i] + i32(-3));
  b.store(u16b, cast(Type::I32, i) - i32(1), u16b[i]);
  return b.build();
}

vyre::Program three_d_subgroups() {
  vyre::ProgramBuilder b;
  b.workgroup(8, 4, 2);
  auto out = b.buffer("out", Access::Output, Type::F64, 1024);
  auto counts = b.buffer("counts", Access::Output, Type::U64, 1024);
  auto lid = b.let("lid", local_id(0) + local_id(1) * u32(8) + local_id(2) * u32(32));
  auto v = b.let("v", cast(Type::F64, lid) / f64(3.0));
  b.store(out, lid, reduce(vyre::ReduceOp::Min, v) + reduce(vyre::ReduceOp::Mul, v));
  b.store(counts, lid,
          reduce(vyre::ReduceOp::Xor, cast(Type::U64, lid)) +
              shuffle(cast(Type::U64, ballot(gt(lid, u32(9)))), subgroup_lane() + u32(33)));
  b.store(counts, lid + u32(64), cast(Type::U64, reduce(vyre::ReduceOp::Mul, lid)));
  b.store(counts, lid + u32(128), cast(Type::U64, reduce(vyre::ReduceOp::Max, cast(Type::I32, lid))));
  return b.build();
}

// A workgroup reduction as users write it (lane 0 of each subgroup stores its partial, a barrier,
// every invocation reads all partials) with divisions the optimizer proves plain: its zeroing of
// workgroup memory is left out and its divisions lose their zero-divisor selects.
vyre::Program reduction_with_divisions() {
  vyre::ProgramBuilder b;
  b.workgroup(128);
  auto in = b.buffer("in", Access::Read, Type::I32);
  auto out = b.buffer("out", Access::Output, Type::I32, 512);
  auto partial = b.buffer("partial", Access::Workgroup, Type::I32, 4);
  auto lid = b.let("lid", local_id(0));
  auto x = b.let("x", in[invocation_id(0)]);
  auto r = b.let("r", reduce(vyre::ReduceOp::Add, x));
  b.if_(eq(lid % u32(32), u32(0)), [&] { b.store(partial, lid / u32(32), r); });
  b.barrier();
  b.let("total", partial[u32(0)] + partial[u32(1)] + partial[u32(2)] + partial[u32(3)]);
  b.store(out, invocation_id(0), var("total") / i32(3) + x % i32(-5) + cast(Type::I32, lid / u32(7)));
  return b.build();
}

}  // namespace

std::vector<CorpusProgram> op_corpus(const std::vector<std::string>& ops) {
  std::vector<CorpusProgram> corpus;
  for (const std::string& op : ops) {
    for (const auto& test : vyre::conform::op_tests(op)) {
      std::uint32_t cases = test.max_cases == 0 ? kCases : std::min(kCases, test.max_cases);
      corpus.push_back({op + " / " + test.name, test.build(cases).program});
    }
  }
  return corpus;
}

std::vector<CorpusProgram> structure_corpus() {
  return {
      {"structure / grid_sync phases", grid_sync_phases()},
      {"structure / nested control flow", nested_control_flow()},
      {"structure / narrow storage", narrow_storage()},
      {"structure / 3-D subgroups", three_d_subgroups()},
      {"structure / reduction with divisions", reduction_with_divisions()},
  };
}

}  // namespace ptx_test
