#include "test_programs.hpp"

#include <algorithm>

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

namespace {

// `target` (read_write u32[n]) = update(target[i], source[i]), `source` read u32[n].
template <class Update>
Program update_program(std::uint32_t n, const char* target_name, const char* source_name, Update update) {
  ProgramBuilder b;
  b.workgroup(128);
  Buf target = b.buffer(target_name, Access::ReadWrite, Type::U32, n);
  Buf source = b.buffer(source_name, Access::Read, Type::U32, n);
  Expr i = b.let("i", invocation_id(0));
  b.store(target, i, update(target[i], source[i]));
  return b.build();
}

}  // namespace

Program mix_program(std::uint32_t n) {
  return update_program(n, "x", "y", [](Expr x, Expr y) { return x * u32(3) + y; });
}

Program scramble_program(std::uint32_t n) {
  return update_program(n, "y", "x", [](Expr y, Expr x) { return y ^ (x >> u32(3)); });
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

Program xor_program(std::uint32_t n) {
  ProgramBuilder b;
  b.workgroup(64);
  Buf a = b.buffer("a", Access::Read, Type::U32, n);
  Buf c = b.buffer("b", Access::Read, Type::U32, n);
  Buf out = b.buffer("out", Access::Output, Type::U32, n);
  Expr i = b.let("i", invocation_id(0));
  b.store(out, i, a[i] ^ c[i]);
  return b.build();
}

std::vector<std::uint32_t> affine_model(const std::vector<std::uint32_t>& a, std::uint32_t n) {
  std::vector<std::uint32_t> out(n, 0);
  for (std::uint32_t i = 0; i < std::min<std::size_t>(a.size(), n); ++i) out[i] = a[i] * 3 + i;
  return out;
}

std::vector<std::uint32_t> rotate_model(std::vector<std::uint32_t> x, int rounds) {
  const std::size_t n = x.size();
  for (int r = 0; r < rounds; ++r) {
    std::vector<std::uint32_t> t(n);
    for (std::size_t i = 0; i < n; ++i) t[i] = x[i] + 1;
    for (std::size_t i = 0; i < n; ++i) x[i] = t[(i + 1) % n];
  }
  return x;
}

std::vector<std::uint32_t> mix_model(std::vector<std::uint32_t> x, const std::vector<std::uint32_t>& y, int rounds,
                                     std::size_t elements) {
  const std::size_t n = std::min(elements, x.size());
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < n; ++i) x[i] = x[i] * 3 + y[i];
  }
  return x;
}

std::vector<std::uint32_t> xor_model(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  std::vector<std::uint32_t> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = a[i] ^ b[i];
  return out;
}

}  // namespace vyre::cudatest
