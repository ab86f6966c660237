// Writes programs built with the C++ ProgramBuilder as wire files, for test_builder.py: the Python
// builder must produce the same bytes (and so the same fingerprints) for the same kernels.
//
//   python_reference_programs DIR   -> DIR/xor.wire, softmax.wire, histogram.wire, branches.wire
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <string>

#include <vyre/builder.hpp>
#include <vyre/error.hpp>
#include <vyre/json.hpp>

namespace {

using namespace vyre::dsl;
using vyre::Access;
using vyre::Type;

vyre::Program xor_program() {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto a = b.buffer("a", Access::Read, Type::U32, 1024);
  auto c = b.buffer("b", Access::Read, Type::U32, 1024);
  auto out = b.buffer("out", Access::Output, Type::U32, 1024);
  auto i = b.let("i", invocation_id(0));
  b.store(out, i, a[i] ^ c[i]);
  return b.build();
}

// One row of 64 per invocation, 256 rows: out = exp(x - max) / sum(exp(x - max)).
vyre::Program softmax_program() {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto x = b.buffer("x", Access::Read, Type::F32, 256 * 64);
  auto out = b.buffer("out", Access::Output, Type::F32, 256 * 64);
  auto row = b.let("row", invocation_id(0));
  b.if_(lt(row, u32(256)), [&] {
    auto base = b.let("base", row * u32(64));
    auto m = b.let("m", x[base]);
    b.loop("j", u32(1), u32(64), [&](vyre::Expr j) { b.assign("m", max(m, x[base + j])); });
    auto s = b.let("s", f32(0.0f));
    b.loop("j", u32(0), u32(64), [&](vyre::Expr j) { b.assign("s", s + un(vyre::UnOp::Exp, x[base + j] - m)); });
    b.loop("j", u32(0), u32(64), [&](vyre::Expr j) {
      b.store(out, base + j, un(vyre::UnOp::Exp, x[base + j] - m) / s);
    });
  });
  return b.build();
}

vyre::Program histogram_program() {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto values = b.buffer("values", Access::Read, Type::U32);
  b.buffer("hist", Access::Output, Type::U32, 16);
  auto i = b.let("i", invocation_id(0));
  b.if_(lt(i, values.len()), [&] {
    auto bin = b.let("bin", values[i] % u32(16));
    b.let("old", atomic(vyre::AtomicOp::Add, "hist", bin, u32(1)));
  });
  return b.build();
}

// If/else, a workgroup buffer with a barrier, a block, casts, a select and an output range.
vyre::Program branches_program() {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto in = b.buffer("in", Access::Read, Type::F16, 1024);
  auto tile = b.buffer("tile", Access::Workgroup, Type::F32, 64);
  auto out = b.buffer("out", Access::Output, Type::I32, 1024);
  b.output_range(out, 16, 4096);
  auto lid = b.let("lid", local_id(0));
  auto gid = b.let("gid", invocation_id(0));
  b.store(tile, lid, in[gid]);
  b.barrier();
  b.if_(gt(tile[lid], f32(0.5f)),
        [&] { b.store(out, gid, cast(Type::I32, tile[lid])); },
        [&] { b.store(out, gid, -cast(Type::I32, tile[lid] * f32(-2.0f))); });
  b.block([&] {
    auto t = b.let("t", select(eq(lid, u32(0)), i32(-7), i32(3)));
    b.store(out, lid, t);
  });
  return b.build();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: python_reference_programs DIR\n");
    return 2;
  }
  const std::map<std::string, std::function<vyre::Program()>> programs = {
      {"xor", xor_program}, {"softmax", softmax_program},
      {"histogram", histogram_program}, {"branches", branches_program}};
  try {
    std::filesystem::create_directories(argv[1]);
    for (const auto& [name, make] : programs)
      vyre::save_program_file(make(), std::filesystem::path(argv[1]) / (name + ".wire"));
  } catch (const vyre::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
