// The optimizer's analyses for issue 11 §2's reduction kernels, and their use by the emitter:
//   - workgroup memory whose zero start no statement can read (optimize/workgroup_init.hpp): the
//     zeroing and its barrier are left out where every element is stored before any read, with a
//     barrier between, and kept wherever a read could see a zero (a read first, a store that misses
//     elements, no barrier, an early return, a data-dependent index, an assigned variable);
//   - divisions whose divisor is never zero (RangeAnalysis::plain_division): lowered as PTX's
//     div/rem (a shift or mask for unsigned powers of two) without the x/0 selects, kept where the
//     divisor can be zero or a signed MIN / -1 can happen;
//   - f32 stores to workgroup memory without NaN canonicalisation (unobservable there), and
//     InvocationId with the launch workgroup size as an immediate.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <functional>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "lowering.hpp"
#include "optimize/value_range.hpp"
#include "optimize/workgroup_init.hpp"
#include "ptx_text.hpp"
#include "vyre/builder.hpp"
#include "vyre/validate.hpp"

namespace {

using namespace vyre::dsl;
using vyre::Access;
using vyre::Type;
namespace cuda = vyre::cuda;
namespace opt = vyre::cuda::optimize;

using Workgroup = std::array<std::uint32_t, 3>;

std::vector<const vyre::Node*> top_level(const vyre::Program& program) {
  std::vector<const vyre::Node*> out;
  for (const vyre::Node& n : program.body) out.push_back(&n);
  return out;
}

// Whether the zero start of the workgroup buffer `name` is unobservable in the (one-phase) program.
bool unobserved(const vyre::Program& program, const std::string& name, Workgroup workgroup) {
  vyre::validate_or_throw(program);
  const auto result = opt::zero_start_unobserved(program, top_level(program), workgroup);
  for (std::size_t i = 0; i < program.buffers.size(); ++i)
    if (program.buffers[i].name == name) return result[i];
  FAIL("no buffer " << name);
  return false;
}

// The softmax-style reduction of the kernel suite (bench/kernels/kernels.cpp, workgroup_reduce):
// lane 0 of each subgroup stores partial[local_id / 32], a barrier, every invocation reads them;
// each flag breaks the pattern in one way.
struct Reduction {
  std::uint32_t partials = 8;
  bool read_first = false;
  bool barrier = true;
  bool early_return = false;
  bool data_index = false;
  bool assigned_index = false;
};

vyre::Program reduction(const Reduction& r) {
  vyre::ProgramBuilder b;
  b.workgroup(256);
  auto x = b.buffer("x", Access::Read, Type::F32);
  auto y = b.buffer("y", Access::Output, Type::F32, 256);
  auto counts = b.buffer("counts", Access::Workgroup, Type::U32, 4);
  auto partial = b.buffer("partial", Access::Workgroup, Type::F32, r.partials);
  auto i = b.let("i", invocation_id(0));
  if (r.read_first) b.let("early", partial[u32(3)]);
  if (r.early_return) b.if_(gt(i, u32(1000)), [&] { b.ret(); });
  b.let("sg", local_id(0) / u32(32));
  b.let("slot", u32(0));
  if (r.assigned_index) b.assign("slot", local_id(0) / u32(32));
  auto v = b.let("v", reduce(vyre::ReduceOp::Max, x[i]));
  vyre::Expr index = r.assigned_index ? var("slot") : r.data_index ? cast(Type::U32, x[i]) : var("sg");
  b.if_(eq(subgroup_lane(), u32(0)), [&] { b.store(partial, index, v); });
  if (r.barrier) b.barrier();
  b.let("m", partial[u32(0)]);
  b.loop("w", u32(1), u32(r.partials), [&](vyre::Expr w) { b.assign("m", max(var("m"), partial[w])); });
  b.store(y, i, var("m") + cast(Type::F32, counts[u32(0)]));
  return b.build();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

std::vector<std::string> instructions(const std::string& ptx) {
  for (const auto& entry : ptx_test::entries(ptx))
    if (entry.name == "vyre_main") return entry.instructions;
  return {};
}

std::size_t opcodes(const std::string& ptx, const std::string& prefix) {
  std::size_t n = 0;
  for (const auto& instruction : instructions(ptx)) n += ptx_test::opcode(instruction).rfind(prefix, 0) == 0;
  return n;
}

cuda::LoweredProgram lower(const vyre::Program& program, std::optional<Workgroup> workgroup, bool optimize = true) {
  vyre::validate_or_throw(program);
  return cuda::lower(program, cuda::Target{90}, cuda::LowerOptions{.workgroup = workgroup, .optimize = optimize});
}

}  // namespace

TEST_CASE("a reduction's partials are stored before they are read: their zero start is unobservable") {
  CHECK(unobserved(reduction({}), "partial", Workgroup{256, 1, 1}));
  // `counts` is read (and never stored): its zeroes are what the program adds.
  CHECK_FALSE(unobserved(reduction({}), "counts", Workgroup{256, 1, 1}));
  // A buffer the phase never reads needs no zeroes either.
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto out = b.buffer("out", Access::Output, Type::U32, 64);
  auto scratch = b.buffer("scratch", Access::Workgroup, Type::U32, 1000);
  b.store(scratch, u32(5), u32(1));
  b.store(out, local_id(0), u32(2));
  (void)out;
  CHECK(unobserved(b.build(), "scratch", Workgroup{64, 1, 1}));
}

TEST_CASE("the zero start stays wherever a read can see an element no store reached") {
  const Workgroup wg{256, 1, 1};
  SUBCASE("a read before the store") { CHECK_FALSE(unobserved(reduction({.read_first = true}), "partial", wg)); }
  SUBCASE("more partials than subgroups: partial[8] is read but never stored") {
    CHECK_FALSE(unobserved(reduction({.partials = 9}), "partial", wg));
  }
  SUBCASE("a smaller launch: 4 subgroups store partial[0..3] of 8") {
    CHECK_FALSE(unobserved(reduction({}), "partial", Workgroup{128, 1, 1}));
    CHECK(unobserved(reduction({.partials = 4}), "partial", Workgroup{128, 1, 1}));
  }
  SUBCASE("no barrier between the store and the reads") {
    CHECK_FALSE(unobserved(reduction({.barrier = false}), "partial", wg));
  }
  SUBCASE("an early return before the store: returned invocations store nothing") {
    CHECK_FALSE(unobserved(reduction({.early_return = true}), "partial", wg));
  }
  SUBCASE("a data-dependent index") { CHECK_FALSE(unobserved(reduction({.data_index = true}), "partial", wg)); }
  SUBCASE("an index through an assigned variable") {
    CHECK_FALSE(unobserved(reduction({.assigned_index = true}), "partial", wg));
  }
}

TEST_CASE("the index is evaluated for every invocation by SPEC's semantics: out-of-range and i32 negatives miss") {
  auto program = [](vyre::Expr index) {
    vyre::ProgramBuilder b;
    b.workgroup(8, 4);
    auto out = b.buffer("out", Access::Output, Type::U32, 32);
    auto tile = b.buffer("tile", Access::Workgroup, Type::U32, 32);
    b.store(tile, index, u32(1));
    b.barrier();
    b.store(out, local_id(0) + local_id(1) * u32(8), tile[u32(31) - local_id(0)]);
    (void)out;
    return b.build();
  };
  const Workgroup wg{8, 4, 1};
  CHECK(unobserved(program(local_id(0) + local_id(1) * u32(8)), "tile", wg));                 // 0..31
  CHECK(unobserved(program(subgroup_lane()), "tile", wg));                                       // lanes 0..31
  CHECK(unobserved(program(u32(31) - (local_id(1) * u32(8) + local_id(0))), "tile", wg));       // reversed
  CHECK_FALSE(unobserved(program(local_id(0) * u32(4) + local_id(1) + u32(1)), "tile", wg));  // 1..32
  CHECK_FALSE(unobserved(program(local_id(0) + local_id(1) * u32(4)), "tile", wg));            // 0..19
  // x / 0 is all ones (out of bounds): the store misses every element.
  CHECK_FALSE(unobserved(program(local_id(0) / (local_id(1) - local_id(1))), "tile", wg));
  // i32 indices: 0 .. 31 covers, -1 .. 30 (-1 is out of bounds) misses element 31.
  CHECK(unobserved(program(cast(Type::I32, local_id(1) * u32(8) + local_id(0))), "tile", wg));
  CHECK_FALSE(unobserved(program(cast(Type::I32, local_id(1) * u32(8) + local_id(0)) - i32(1)), "tile", wg));
}

TEST_CASE("an atomic on the buffer before the covering store reads it") {
  auto program = [](bool atomic_first) {
    vyre::ProgramBuilder b;
    b.workgroup(32);
    auto out = b.buffer("out", Access::Output, Type::U32, 32);
    auto tile = b.buffer("tile", Access::Workgroup, Type::U32, 32);
    if (atomic_first) b.let("old", atomic(vyre::AtomicOp::Add, "tile", u32(0), u32(1)));
    b.store(tile, local_id(0), u32(1));
    b.barrier();
    b.store(out, local_id(0), tile[u32(31) - local_id(0)]);
    (void)out;
    return b.build();
  };
  CHECK(unobserved(program(false), "tile", Workgroup{32, 1, 1}));
  CHECK_FALSE(unobserved(program(true), "tile", Workgroup{32, 1, 1}));
}

TEST_CASE("the emitted PTX: no zeroing where the analysis proved it unobservable, zeroing everywhere else") {
  const vyre::Program proven = reduction({.partials = 8});
  // `counts` is read: the block is still zeroed.
  CHECK(count(lower(proven, Workgroup{256, 1, 1}).ptx, "zero_shared") > 0);

  // Without the `counts` buffer: nothing needs the zeroes.
  vyre::ProgramBuilder b;
  b.workgroup(256);
  auto x = b.buffer("x", Access::Read, Type::F32);
  auto y = b.buffer("y", Access::Output, Type::F32, 256);
  auto partial = b.buffer("partial", Access::Workgroup, Type::F32, 8);
  auto i = b.let("i", invocation_id(0));
  auto v = b.let("v", reduce(vyre::ReduceOp::Add, x[i]));
  b.if_(eq(subgroup_lane(), u32(0)), [&] { b.store(partial, local_id(0) / u32(32), v); });
  b.barrier();
  b.store(y, i, v + partial[u32(7)]);
  const vyre::Program program = b.build();

  const auto optimized = lower(program, Workgroup{256, 1, 1});
  CHECK(count(optimized.ptx, "zero_shared") == 0);
  CHECK(opcodes(optimized.ptx, "bar.sync") == 1);  // the program's own barrier only
  // The switch (VYRE_CUDA_DISABLE_OPTIMIZER=1 sets optimize = false) and an unknown launch size
  // keep the zeroing and its barrier.
  const auto off = lower(program, Workgroup{256, 1, 1}, false);
  CHECK(count(off.ptx, "zero_shared") > 0);
  CHECK(opcodes(off.ptx, "bar.sync") == 2);
  const auto unknown = lower(program, std::nullopt);
  CHECK(count(unknown.ptx, "zero_shared") > 0);
  // A launch of 128 invocations stores partial[0..3] only: partial[7] reads a zero.
  const auto smaller = lower(program, Workgroup{128, 1, 1});
  CHECK(count(smaller.ptx, "zero_shared") > 0);
  // With a known launch size the zeroing is one store per invocation, no loop.
  CHECK(count(smaller.ptx, "$L_zero_shared_done_") == 2);
  CHECK(count(smaller.ptx, "$L_zero_shared_") == 2);
  CHECK(count(unknown.ptx, "$L_zero_shared_") == 4);  // the loop: head and done labels, two branches
  CHECK(count(off.ptx, "$L_zero_shared_") == 4);      // without the optimizer: the loop too
}

TEST_CASE("a grid_sync phase is analysed on its own: workgroup memory is zero again after it") {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto data = b.buffer("data", Access::ReadWrite, Type::U32, 64);
  auto tile = b.buffer("tile", Access::Workgroup, Type::U32, 64);
  b.store(tile, local_id(0), data[local_id(0)]);
  b.barrier();
  b.store(data, local_id(0), tile[u32(63) - local_id(0)]);
  b.grid_sync();
  b.store(data, local_id(0), data[local_id(0)] + tile[local_id(0)]);  // reads the zeroes
  const vyre::Program program = b.build();
  vyre::validate_or_throw(program);
  const auto layout_phases = [&] {
    std::vector<std::vector<const vyre::Node*>> phases(1);
    for (const vyre::Node& n : program.body) {
      if (n.kind == vyre::NodeKind::Barrier && n.barrier == vyre::BarrierKind::GridSync) {
        phases.emplace_back();
        continue;
      }
      phases.back().push_back(&n);
    }
    return phases;
  }();
  REQUIRE(layout_phases.size() == 2);
  CHECK(opt::zero_start_unobserved(program, layout_phases[0], Workgroup{64, 1, 1})[1]);
  CHECK_FALSE(opt::zero_start_unobserved(program, layout_phases[1], Workgroup{64, 1, 1})[1]);
  CHECK_FALSE(opt::zero_start_unobserved(program, layout_phases[0], Workgroup{64, 1, 1})[0]);  // global
  // The whole entry zeroes once (after the grid barrier), not at its start.
  const auto lowered = lower(program, Workgroup{64, 1, 1});
  const auto entries = ptx_test::entries(lowered.ptx);
  for (const auto& entry : entries) {
    INFO(entry.name);
    std::size_t zeroings = 0;
    for (const auto& instruction : entry.instructions)
      zeroings += ptx_test::opcode(instruction) == "bra" && instruction.find("zero_shared_done_") != std::string::npos;
    if (entry.name == "vyre_main") CHECK(zeroings == 1);
    if (entry.name == "vyre_phase_0") CHECK(zeroings == 0);
    if (entry.name == "vyre_phase_1") CHECK(zeroings == 1);
  }
}

// ---- divisions ----------------------------------------------------------------------------------

namespace {

// Each stored value is one division; the analysis's verdict for each, in program order.
std::vector<bool> plain_divisions(const vyre::Program& program, std::optional<Workgroup> workgroup) {
  vyre::validate_or_throw(program);
  const opt::RangeAnalysis ranges(program, opt::RangeAssumptions{workgroup});
  std::vector<bool> out;
  std::function<void(const std::vector<vyre::Node>&)> walk = [&](const std::vector<vyre::Node>& body) {
    for (const vyre::Node& n : body) {
      if (n.kind == vyre::NodeKind::Store) out.push_back(ranges.plain_division(n.exprs[1]));
      walk(n.body);
      walk(n.else_body);
    }
  };
  walk(program.body);
  return out;
}

vyre::Program divisions() {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto in = b.buffer("in", Access::Read, Type::U32);
  auto si = b.buffer("si", Access::Read, Type::I32);
  auto out = b.buffer("out", Access::Output, Type::U32, 64);
  auto sout = b.buffer("sout", Access::Output, Type::I32, 64);
  auto lid = b.let("lid", local_id(0));
  auto d = b.let("d", in[lid]);
  b.store(out, lid, lid / u32(32));                                   // 0: literal: plain
  b.store(out, lid, d % u32(7));                                      // 1: literal: plain
  b.store(out, lid, d / (lid + u32(1)));                              // 2: [1, 64]: plain
  b.store(out, lid, d / lid);                                         // 3: lid can be 0
  b.store(out, lid, lid / d);                                         // 4: data
  b.store(out, lid, d / (lid + u32(0xFFFFFFFF)));                     // 5: wraps to 0 at lid 1
  b.if_(ne(d, u32(0)), [&] { b.store(out, lid, lid / d); });          // 6: guarded: plain
  b.if_(ne(d, u32(0)), [&] {}, [&] { b.store(out, lid, lid % d); });  // 7: else branch: d is 0
  b.store(sout, lid, si[lid] / i32(3));                               // 8: signed, not -1: plain
  b.store(sout, lid, si[lid] / si[lid + u32(1)]);                     // 9: signed data
  b.store(sout, lid, si[lid] % (cast(Type::I32, lid) + i32(1)));     // 10: [1, 64]: plain
  b.store(sout, lid, cast(Type::I32, lid) / i32(-1));                 // 11: -1, but the dividend >= 0: plain
  b.store(sout, lid, si[lid] / i32(-1));                              // 12: MIN / -1 possible
  (void)out;
  (void)sout;
  return b.build();
}

}  // namespace

TEST_CASE("divisions are plain exactly where the divisor is never zero (nor a signed MIN / -1)") {
  CHECK(plain_divisions(divisions(), Workgroup{64, 1, 1}) ==
        std::vector<bool>{true, true, true, false, false, false, true, false, true, false, true, true, false});
  // Without a known launch size, lid + 1 is still >= 1; nothing else changes.
  CHECK(plain_divisions(divisions(), std::nullopt) ==
        std::vector<bool>{true, true, true, false, false, false, true, false, true, false, true, true, false});
}

TEST_CASE("the emitted PTX: plain divisions without selects, a shift or mask for unsigned powers of two") {
  const auto optimized = lower(divisions(), Workgroup{64, 1, 1});
  const auto text = instructions(optimized.ptx);
  auto has = [&](const std::string& pattern) {
    return std::any_of(text.begin(), text.end(), [&](const std::string& i) { return i.find(pattern) != std::string::npos; });
  };
  CHECK(has("shr.u32"));             // lid / 32
  CHECK(has("rem.u32"));             // d % 7 with an immediate
  CHECK(has(", 7;"));
  CHECK(has("div.s32"));
  CHECK(has(", 3;"));                // si / 3 with an immediate
  CHECK(has(", -1;"));               // lid / -1 as a signed immediate
  // 13 divisions: 7 plain ones (6 as div/rem, lid / 32 as a shift) and 6 with the zero-divisor
  // selects (two selp each: the divisor replaced by 1, the result of x/0 or x%0).
  const std::size_t divs = opcodes(optimized.ptx, "div.") + opcodes(optimized.ptx, "rem.");
  CHECK(divs == 12);
  const auto off = lower(divisions(), Workgroup{64, 1, 1}, false);
  CHECK(opcodes(off.ptx, "div.") + opcodes(off.ptx, "rem.") == 13);
  CHECK(opcodes(off.ptx, "selp.") == 2 * 13);
  CHECK(opcodes(optimized.ptx, "selp.") == 2 * 6);
}

// ---- NaN payloads in workgroup memory ---------------------------------------------------------------

TEST_CASE("f32 stores to workgroup memory keep the register's bits; global stores and bitcasts canonicalise") {
  vyre::ProgramBuilder b;
  b.workgroup(32);
  auto x = b.buffer("x", Access::Read, Type::F32);
  auto y = b.buffer("y", Access::Output, Type::F32, 32);
  auto bits = b.buffer("bits", Access::Output, Type::U32, 32);
  auto tile = b.buffer("tile", Access::Workgroup, Type::F32, 32);
  auto halves = b.buffer("halves", Access::Workgroup, Type::F16, 32);
  b.store(tile, local_id(0), x[local_id(0)] / f32(0.0f));
  b.store(halves, local_id(0), x[local_id(0)]);
  b.barrier();
  b.store(y, local_id(0), tile[u32(31) - local_id(0)] + halves[local_id(0)]);
  b.store(bits, local_id(0), bitcast(Type::U32, tile[local_id(0)]));
  (void)y;
  (void)bits;
  const vyre::Program program = b.build();
  // The optimizer: the global f32 store and the bitcast test for NaN, the workgroup f32 store does
  // not; the f16 narrowing keeps its canonical NaN (a test and a selp on the 16-bit value).
  const auto optimized = lower(program, Workgroup{32, 1, 1});
  CHECK(opcodes(optimized.ptx, "testp.notanumber") == 3);
  CHECK(opcodes(optimized.ptx, "selp.b16") == 1);
  const auto off = lower(program, Workgroup{32, 1, 1}, false);
  CHECK(opcodes(off.ptx, "testp.notanumber") == 4);
  CHECK(opcodes(off.ptx, "selp.b16") == 1);
}

// ---- the launch workgroup as an immediate -------------------------------------------------------------

TEST_CASE("InvocationId multiplies by the launch workgroup size as an immediate, not %ntid") {
  vyre::ProgramBuilder b;
  b.workgroup(64, 2);
  auto out = b.buffer("out", Access::Output, Type::U32, 4096);
  b.store(out, invocation_id(0) + invocation_id(1) * u32(128), u32(1));
  (void)out;
  const vyre::Program program = b.build();
  auto main_text = [](const cuda::LoweredProgram& lowered) {
    for (const auto& entry : ptx_test::entries(lowered.ptx))
      if (entry.name == "vyre_main") return entry.text;
    return std::string();
  };
  const std::string optimized = main_text(lower(program, Workgroup{64, 2, 1}));
  CHECK(count(optimized, "%ntid") == 0);
  CHECK(count(optimized, ", 64, %r") == 1);
  CHECK(count(optimized, ", 2, %r") == 1);
  CHECK(std::regex_search(optimized, std::regex("mov\\.u32 %r[0-9]+, 64;")));  // the tail guard
  // A workgroup_override launch lowers its own module with its size.
  CHECK(count(main_text(lower(program, Workgroup{32, 4, 1})), ", 32, %r") == 1);
  // Without the optimizer or without a known size: %ntid (InvocationId.x and the tail guard).
  CHECK(count(main_text(lower(program, Workgroup{64, 2, 1}, false)), "%ntid.x") == 2);
  CHECK(count(main_text(lower(program, std::nullopt)), "%ntid.x") == 2);
}
