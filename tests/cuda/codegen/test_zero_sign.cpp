// The zero-sign analysis (optimize/zero_sign.hpp) and its use by the emitter: a float min/max whose
// result reaches only contexts that cannot tell -0 from +0 loses SPEC's signed-zero fix-up; one
// whose result can reach a store, a bitcast, a divisor, reciprocal or inverse_sqrt keeps it. The
// semantic check runs programs on reference_cpu as written and with every min/max the analysis
// proved replaced by one returning the other zero: the outputs must be the same bits.
#include <doctest/doctest.h>

#include <array>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "reference_backend.hpp"
#include "lowering.hpp"
#include "optimize/zero_sign.hpp"
#include "vyre/backend.hpp"
#include "vyre/builder.hpp"
#include "vyre/json.hpp"
#include "vyre/validate.hpp"

namespace {

using namespace vyre::dsl;
using vyre::Access;
using vyre::Expr;
using vyre::Type;
using vyre::UnOp;
namespace cuda = vyre::cuda;
namespace opt = vyre::cuda::optimize;

// How the row maximum m = max(max(x[0], x[1]), x[2]) is used; the program stores the use's result.
vyre::Program row_max(const std::function<Expr(Expr)>& use, Type out_type = Type::F32) {
  vyre::ProgramBuilder b;
  b.workgroup(32);
  auto x = b.buffer("x", Access::Read, Type::F32);
  auto y = b.buffer("y", Access::Output, out_type, 32);
  b.let("m", x[u32(0)]);
  b.loop("w", u32(1), u32(3), [&](Expr w) { b.assign("m", max(var("m"), x[w])); });
  b.store(y, local_id(0), use(var("m")));
  (void)y;
  return b.build();
}

std::size_t proven(const vyre::Program& program) {
  vyre::validate_or_throw(program);
  return opt::ZeroSignAnalysis(program).proven();
}

const vyre::host::Backend& reference() { return vyre::cudatest::reference_backend(); }

// A copy of `e` (an expression of `original`) where every min/max the analysis proved blind returns
// the other signed zero when its result is a zero: select(r == 0, -r, r).
Expr flip_blind(const Expr& e, const opt::ZeroSignAnalysis& analysis) {
  Expr copy = e;
  for (std::size_t i = 0; i < e.args.size(); ++i) copy.args[i] = flip_blind(e.args[i], analysis);
  if (e.kind == vyre::ExprKind::Bin && analysis.blind(e)) {
    return select(eq(copy, f32(0.0f)), un(UnOp::Neg, copy), copy);
  }
  return copy;
}

void flip_body(std::vector<vyre::Node>& copy, const std::vector<vyre::Node>& original,
               const opt::ZeroSignAnalysis& analysis) {
  for (std::size_t i = 0; i < original.size(); ++i) {
    for (std::size_t k = 0; k < original[i].exprs.size(); ++k)
      copy[i].exprs[k] = flip_blind(original[i].exprs[k], analysis);
    flip_body(copy[i].body, original[i].body, analysis);
    flip_body(copy[i].else_body, original[i].else_body, analysis);
  }
}

// max(-0, +0) = +0, then max(+0, +0): m is +0; with the other zero out of each maximum it ends -0.
std::vector<float> zeros_in() { return {-0.0f, 0.0f, 0.0f, 0.0f, -0.0f, -0.0f, 0.0f, 0.0f}; }

}  // namespace

TEST_CASE("a maximum used only where -0 and +0 look alike is blind; one that reaches the bits is not") {
  CHECK(proven(row_max([](Expr m) { return un(UnOp::Exp, f32(1.0f) - m); })) == 1);
  CHECK(proven(row_max([](Expr m) { return un(UnOp::Cos, m * f32(3.0f)); })) == 1);
  CHECK(proven(row_max([](Expr m) { return un(UnOp::Log, un(UnOp::Sqrt, m)); })) == 1);
  CHECK(proven(row_max([](Expr m) { return cast(Type::U32, lt(m, f32(0.5f))); }, Type::U32)) == 1);
  CHECK(proven(row_max([](Expr m) { return cast(Type::U32, m); }, Type::U32)) == 1);
  CHECK(proven(row_max([](Expr m) { return select(eq(m, f32(0.0f)), f32(1.0f), f32(2.0f)); })) == 1);
  // The sign reaches the output.
  CHECK(proven(row_max([](Expr m) { return m; })) == 0);
  CHECK(proven(row_max([](Expr m) { return m + f32(0.0f); })) == 0);
  CHECK(proven(row_max([](Expr m) { return f32(1.0f) / m; })) == 0);             // 1/±0 = ±inf
  CHECK(proven(row_max([](Expr m) { return m / f32(4.0f); })) == 0);             // ±0 / 4 = ±0, stored
  CHECK(proven(row_max([](Expr m) { return un(UnOp::Reciprocal, m); })) == 0);
  CHECK(proven(row_max([](Expr m) { return un(UnOp::InverseSqrt, m); })) == 0);
  CHECK(proven(row_max([](Expr m) { return bitcast(Type::U32, m); }, Type::U32)) == 0);
  CHECK(proven(row_max([](Expr m) { return un(UnOp::Exp, un(UnOp::Reciprocal, m)); })) == 0);
}

TEST_CASE("variables and workgroup buffers are blind only when every use is") {
  // m is used twice: under exp (blind) and stored (not): the maximum keeps its fix-up.
  vyre::ProgramBuilder b;
  b.workgroup(32);
  auto x = b.buffer("x", Access::Read, Type::F32);
  auto y = b.buffer("y", Access::Output, Type::F32, 64);
  auto tile = b.buffer("tile", Access::Workgroup, Type::F32, 32);
  auto scratch = b.buffer("scratch", Access::Workgroup, Type::F32, 32);
  b.let("m", max(x[u32(0)], x[u32(1)]));
  b.store(y, local_id(0), un(UnOp::Exp, var("m")));
  b.store(y, local_id(0) + u32(32), var("m"));
  // Through workgroup memory: tile is read only under exp (blind); scratch is read into a store.
  b.store(tile, local_id(0), max(x[u32(2)], x[u32(3)]));
  b.store(scratch, local_id(0), max(x[u32(4)], x[u32(5)]));
  b.barrier();
  b.store(y, local_id(0), un(UnOp::Exp, tile[u32(31) - local_id(0)]) + scratch[local_id(0)]);
  (void)y;
  const vyre::Program program = b.build();
  vyre::validate_or_throw(program);
  const opt::ZeroSignAnalysis analysis(program);
  CHECK(analysis.proven() == 1);
  CHECK(analysis.blind(program.body[3].exprs[1]));   // tile's maximum
  CHECK_FALSE(analysis.blind(program.body[0].exprs[0]));
  CHECK_FALSE(analysis.blind(program.body[4].exprs[1]));
}

TEST_CASE("the emitted PTX: a blind max is one max.f32, the others keep the compare, and, select") {
  const vyre::Program blind = row_max([](Expr m) { return un(UnOp::Exp, f32(1.0f) - m); });
  const vyre::Program seen = row_max([](Expr m) { return m; });
  for (const auto* p : {&blind, &seen}) vyre::validate_or_throw(*p);
  auto fixups = [](const std::string& ptx) {
    std::size_t n = 0;
    for (auto at = ptx.find("setp.eq.f32"); at != std::string::npos; at = ptx.find("setp.eq.f32", at + 1)) ++n;
    return n;
  };
  const std::array<std::uint32_t, 3> wg{32, 1, 1};
  CHECK(fixups(cuda::lower(blind, cuda::Target{90}, cuda::LowerOptions{.workgroup = wg}).ptx) == 0);
  CHECK(fixups(cuda::lower(seen, cuda::Target{90}, cuda::LowerOptions{.workgroup = wg}).ptx) == 2);
  // Without the optimizer the 2-trip loop stays rolled: one maximum, with its fix-up.
  CHECK(fixups(cuda::lower(blind, cuda::Target{90}, cuda::LowerOptions{.workgroup = wg, .optimize = false}).ptx) == 1);
}

TEST_CASE("on reference_cpu, the other zero out of every proven maximum changes no output bit") {
  std::vector<vyre::Program> programs = {
      row_max([](Expr m) { return un(UnOp::Exp, f32(1.0f) - m); }),
      row_max([](Expr m) { return un(UnOp::Cos, m * f32(3.0f)) + un(UnOp::Exp2, m); }),
      row_max([](Expr m) { return un(UnOp::Log, un(UnOp::Sqrt, m)); }),
      row_max([](Expr m) { return cast(Type::U32, lt(m, f32(0.0f))) + cast(Type::U32, m); }, Type::U32),
      row_max([](Expr m) { return select(ge(m, f32(0.0f)), f32(1.0f), f32(2.0f)) + un(UnOp::Cosh, m); }),
  };
  // And one the analysis must reject: flipping its maximum's zero would show (checked below).
  const vyre::Program rejected = row_max([](Expr m) { return f32(1.0f) / m; });
  const auto in = zeros_in();
  const std::vector<vyre::host::Bytes> inputs{std::as_bytes(std::span(in))};
  vyre::DispatchConfig config;
  config.grid = std::array<std::uint32_t, 3>{1, 1, 1};
  std::size_t flipped = 0;
  for (const auto& program : programs) {
    INFO(vyre::to_json(program));
    vyre::validate_or_throw(program);
    const opt::ZeroSignAnalysis analysis(program);
    REQUIRE(analysis.proven() > 0);
    vyre::Program changed = program;
    flip_body(changed.body, program.body, analysis);
    vyre::validate_or_throw(changed);
    const auto a = reference().dispatch(reference().compile(program), inputs, config);
    const auto b = reference().dispatch(reference().compile(changed), inputs, config);
    CHECK(a.at(0) == b.at(0));
    ++flipped;
  }
  CHECK(flipped == programs.size());
  // The test can fail: flipping the rejected program's maximum by hand changes its output.
  vyre::validate_or_throw(rejected);
  CHECK(opt::ZeroSignAnalysis(rejected).proven() == 0);
  vyre::Program forced = rejected;
  // body: let m, loop { assign m = max(m, x[w]) }, store
  Expr& assigned = forced.body[1].body[0].exprs[0];
  assigned = select(eq(assigned, f32(0.0f)), un(UnOp::Neg, assigned), assigned);
  vyre::validate_or_throw(forced);
  const auto a = reference().dispatch(reference().compile(rejected), inputs, config);
  const auto b = reference().dispatch(reference().compile(forced), inputs, config);
  CHECK(a.at(0) != b.at(0));
}
