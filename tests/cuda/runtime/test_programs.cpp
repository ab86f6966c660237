#include "test_programs.hpp"

#include "vyre/builder.hpp"

namespace vyre::cudatest {

using namespace vyre::dsl;  // builder sugar, this file only

Program affine_program(std::uint32_t n) {
  ProgramBuilder b;
  b.workgroup(64);
  Buf a = b.buffer("a", Access::Read, Type::U32);
  Buf out = b.buffer("out", Access::Output, Type::U32, n);
  Expr i = b.let("i", invocation_id(0));
  b.if_(lt(i, a.len()), [&] { b.store(out, i, a[i] * u32(3) + i); });
  return b.build();
}

Program rotate_program(std::uint32_t n, std::uint32_t workgroup) {
  ProgramBuilder b;
  b.workgroup(workgroup);
  Buf x = b.buffer("x", Access::ReadWrite, Type::U32, n);
  Buf t = b.buffer("t", Access::Output, Type::U32, n);
  Expr i = b.let("i", invocation_id(0));
  b.if_(lt(i, u32(n)), [&] { b.store(t, i, x[i] + u32(1)); });
  b.grid_sync();
  Expr j = b.let("j", invocation_id(0));
  b.if_(lt(j, u32(n)), [&] { b.store(x, j, t[(j + u32(1)) % u32(n)]); });
  return b.build();
}

Program increment_program(std::uint32_t n) {
  ProgramBuilder b;
  b.workgroup(128);
  Buf x = b.buffer("x", Access::ReadWrite, Type::U32, n);
  Expr i = b.let("i", invocation_id(0));
  b.store(x, i, x[i] + u32(1));
  return b.build();
}

Program mix_program(std::uint32_t n) {
  ProgramBuilder b;
  b.workgroup(128);
  Buf x = b.buffer("x", Access::ReadWrite, Type::U32, n);
  Buf y = b.buffer("y", Access::Read, Type::U32, n);
  Expr i = b.let("i", invocation_id(0));
  b.store(x, i, x[i] * u32(3) + y[i]);
  return b.build();
}

Program scramble_program(std::uint32_t n) {
  ProgramBuilder b;
  b.workgroup(128);
  Buf y = b.buffer("y", Access::ReadWrite, Type::U32, n);
  Buf x = b.buffer("x", Access::Read, Type::U32, n);
  Expr i = b.let("i", invocation_id(0));
  b.store(y, i, y[i] ^ (x[i] >> u32(3)));
  return b.build();
}

Program ranged_xor_program(std::uint32_t n, std::uint64_t begin, std::uint64_t end) {
  ProgramBuilder b;
  b.workgroup(64);
  Buf a = b.buffer("a", Access::Read, Type::U32, n);
  Buf c = b.buffer("b", Access::Read, Type::U32, n);
  Buf out = b.buffer("out", Access::Output, Type::U32, n);
  b.output_range(out, begin, end);
  Expr i = b.let("i", invocation_id(0));
  b.store(out, i, a[i] ^ c[i]);
  return b.build();
}

}  // namespace vyre::cudatest
