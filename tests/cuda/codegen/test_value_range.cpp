// The CUDA optimizer (plugins/cuda/src/optimize/): the value-range analysis and its use by the
// emitter (a bounds check is dropped where the index is provably in range, and kept wherever an
// index can exceed the buffer: data-dependent indices, loops past the end, wrap-around, a launch
// workgroup larger than the declared one, guards on another buffer or an assigned variable), and
// the unrolling of small constant-trip loops.
#include <doctest/doctest.h>

#include <regex>
#include <string>
#include <vector>

#include "lowering.hpp"
#include "optimize/unroll.hpp"
#include "optimize/value_range.hpp"
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

// The analysis of a program (validated first: the analysis is for validated programs).
struct Analysed {
  vyre::Program program;
  opt::RangeAnalysis ranges;
  Analysed(vyre::Program p, std::optional<Workgroup> workgroup, std::vector<std::uint32_t> covering = {})
      : program(std::move(p)),
        ranges((vyre::validate_or_throw(program), program), opt::RangeAssumptions{workgroup, std::move(covering)}) {}
};

// The store nodes of a body, depth first, in program order.
void collect_stores(const std::vector<vyre::Node>& body, std::vector<const vyre::Node*>& out) {
  for (const vyre::Node& n : body) {
    if (n.kind == vyre::NodeKind::Store) out.push_back(&n);
    collect_stores(n.body, out);
    collect_stores(n.else_body, out);
  }
}

std::vector<const vyre::Node*> stores(const vyre::Program& program) {
  std::vector<const vyre::Node*> out;
  collect_stores(program.body, out);
  return out;
}

// For each store in program order: proved in bounds?
std::vector<bool> proven_stores(const Analysed& a) {
  std::vector<bool> out;
  for (const vyre::Node* n : stores(a.program)) out.push_back(a.ranges.in_bounds(*n));
  return out;
}

// The interval of the value stored by the store at `index` (program order).
std::optional<opt::Interval> stored_range(const Analysed& a, std::size_t index) {
  return a.ranges.range(stores(a.program).at(index)->exprs[1]);
}

opt::Interval iv(std::uint64_t lo, std::uint64_t hi) { return opt::Interval{lo, hi}; }

// A 16x16-tiled matmul of n x n matrices, as a user writes it: the tiles live in workgroup memory,
// indexed by local ids and the inner loop's variable; global loads are guarded by the program.
vyre::Program tiled_matmul() {
  vyre::ProgramBuilder b;
  b.workgroup(16, 16);
  auto a = b.buffer("a", Access::Read, Type::F32);
  auto bm = b.buffer("b", Access::Read, Type::F32);
  auto c = b.buffer("c", Access::Output, Type::F32, 64 * 64);
  auto ta = b.buffer("ta", Access::Workgroup, Type::F32, 256);
  auto tb = b.buffer("tb", Access::Workgroup, Type::F32, 256);
  auto n = b.let("n", u32(64));
  auto lx = b.let("lx", local_id(0));
  auto ly = b.let("ly", local_id(1));
  auto row = b.let("row", workgroup_id(1) * u32(16) + ly);
  auto col = b.let("col", workgroup_id(0) * u32(16) + lx);
  b.let("acc", f32(0.0f));
  b.loop("t", u32(0), n / u32(16), [&](vyre::Expr t) {
    auto ai = b.let("ai", row * n + t * u32(16) + lx);
    auto bi = b.let("bi", (t * u32(16) + ly) * n + col);
    b.store(ta, ly * u32(16) + lx, select(lt(ai, a.len()), a[ai], f32(0.0f)));
    b.store(tb, ly * u32(16) + lx, select(lt(bi, bm.len()), bm[bi], f32(0.0f)));
    b.barrier();
    b.loop("k", u32(0), u32(16), [&](vyre::Expr k) {
      b.assign("acc", fma(ta[ly * u32(16) + k], tb[k * u32(16) + lx], var("acc")));
    });
    b.barrier();
  });
  b.if_(logical_and(lt(row, n), lt(col, n)), [&] { b.store(c, row * n + col, var("acc")); });
  return b.build();
}

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// Loads, stores and atomics of the whole entry in one state space ("shared", "global"), predicated
// or not (the shared-memory zeroing loop's one store is among the unpredicated ones).
struct AccessCounts {
  std::size_t checked = 0;
  std::size_t unchecked = 0;
};

AccessCounts accesses(const std::string& ptx, const std::string& space) {
  AccessCounts counts;
  for (const auto& entry : ptx_test::entries(ptx)) {
    if (entry.name != "vyre_main") continue;
    for (const auto& instruction : entry.instructions) {
      const std::string op = ptx_test::opcode(instruction);
      const bool access = op.rfind("ld." + space, 0) == 0 || op.rfind("st." + space, 0) == 0 ||
                          op.rfind("atom.relaxed.gpu." + space, 0) == 0;
      if (!access) continue;
      if (ptx_test::is_predicated(instruction)) {
        ++counts.checked;
      } else {
        ++counts.unchecked;
      }
    }
  }
  return counts;
}

// Each zeroing loop has two branches to its labels.
// Zeroings of the shared block (a loop, or one store per invocation: both end at a
// $L_zero_shared_done_ label, branched to once).
std::size_t zeroing_loops(const std::string& ptx) { return count(ptx, "$L_zero_shared_done_") / 2; }

}  // namespace

TEST_CASE("intervals: literals, builtins and operators, with wrap-around giving the full range") {
  vyre::ProgramBuilder b;
  b.workgroup(64, 2);
  auto out = b.buffer("out", Access::Output, Type::U32, 16);
  auto big = b.buffer("big", Access::Output, Type::U64, 16);
  auto lx = b.let("lx", local_id(0));
  b.store(out, u32(0), lx);                                   // 0: [0, 63]
  b.store(out, u32(1), (lx & u32(15)) + u32(3));             // 1: [3, 18]
  b.store(out, u32(2), lx >> u32(2));                        // 2: [0, 15]
  b.store(out, u32(3), invocation_id(0) % u32(10));          // 3: [0, 9]
  b.store(out, u32(4), min(invocation_id(0), u32(7)));       // 4: [0, 7]
  b.store(out, u32(5), lx * u32(0x8000000));                 // 5: 63 * 2^27 wraps: full
  b.store(out, u32(6), lx - u32(1));                         // 6: 0 - 1 wraps: full
  b.store(out, u32(7), local_id(1) * u32(64) + lx);          // 7: [0, 127]
  b.store(out, u32(8), subgroup_lane());                     // 8: [0, 31]
  b.store(out, u32(9), lx % u32(0));                         // 9: x % 0 = x: [0, 63]
  b.store(out, u32(10), cast(Type::U32, gt(lx, u32(3))));    // 10: bool: [0, 1]
  b.store(big, u32(0), cast(Type::U64, lx) << u32(40));      // 11: [0, 63 << 40]
  b.store(out, u32(11), invocation_id(1));                   // 12: [0, 65534 * 2 + 1]
  b.store(out, u32(12), lx | u32(64));                       // 13: [64, 127]
  const Analysed a(b.build(), Workgroup{64, 2, 1});
  CHECK(stored_range(a, 0) == iv(0, 63));
  CHECK(stored_range(a, 1) == iv(3, 18));
  CHECK(stored_range(a, 2) == iv(0, 15));
  CHECK(stored_range(a, 3) == iv(0, 9));
  CHECK(stored_range(a, 4) == iv(0, 7));
  CHECK(stored_range(a, 5) == iv(0, 0xFFFFFFFF));
  CHECK(stored_range(a, 6) == iv(0, 0xFFFFFFFF));
  CHECK(stored_range(a, 7) == iv(0, 127));
  CHECK(stored_range(a, 8) == iv(0, 31));
  CHECK(stored_range(a, 9) == iv(0, 63));
  CHECK(stored_range(a, 10) == iv(0, 1));
  CHECK(stored_range(a, 11) == iv(0, std::uint64_t{63} << 40));
  CHECK(stored_range(a, 12) == iv(0, 65534 * 2 + 1));
  CHECK(stored_range(a, 13) == iv(64, 127));
  // Every index is a literal below 16, and both buffers are declared with 16 elements, which every
  // binding must hold exactly (SPEC: count > 0 fixes the bound length): all proved.
  CHECK(a.ranges.proven() == 14);
  CHECK(a.ranges.accesses() == 14);
}

TEST_CASE("without a known launch workgroup, local_id is bounded only by CUDA's 1024") {
  vyre::ProgramBuilder b;
  b.workgroup(16);
  auto out = b.buffer("out", Access::Output, Type::U32, 16);
  b.store(out, u32(0), local_id(0));
  b.store(out, u32(1), local_id(2));
  const Analysed unknown(b.build(), std::nullopt);
  CHECK(stored_range(unknown, 0) == iv(0, 1023));
  CHECK(stored_range(unknown, 1) == iv(0, 1023));
}

TEST_CASE("a tiled matmul: its workgroup-memory tile accesses are proved in bounds, its global ones are not") {
  const Analysed a(tiled_matmul(), Workgroup{16, 16, 1});
  // 2 tile stores, 2 tile loads in the inner loop; 2 guarded global loads of runtime-sized buffers
  // (select: evaluated unconditionally, so the guard does not dominate them) keep their checks; the
  // c store under `row < 64 && col < 64` indexes at most 63 * 64 + 63 < 4096, c's declared count.
  CHECK(a.ranges.accesses() == 7);
  CHECK(a.ranges.proven() == 5);
  CHECK(proven_stores(a) == std::vector<bool>{true, true, true});

  // The same program launched with a larger workgroup (workgroup_override [32, 16, 1]): local_id(0)
  // reaches 31, so ly * 16 + lx reaches 271 > 255 and every tile access indexed by lx keeps its
  // check; ta[ly * 16 + k] does not depend on lx and stays proved.
  const Analysed wider(tiled_matmul(), Workgroup{32, 16, 1});
  CHECK(wider.ranges.proven() == 1 + 1);  // and the guarded c store, whatever the workgroup
  // Without a known size (the ptx_aot test plugin, conform --offline) nothing about local_id helps.
  const Analysed unknown(tiled_matmul(), std::nullopt);
  CHECK(unknown.ranges.proven() == 1);
}

TEST_CASE("the emitted matmul PTX: tile accesses unpredicated for its declared workgroup, predicated for a larger one") {
  const vyre::Program program = tiled_matmul();
  vyre::validate_or_throw(program);
  const auto exact = cuda::lower(program, cuda::Target{90}, cuda::LowerOptions{.workgroup = Workgroup{16, 16, 1}});
  const AccessCounts shared = accesses(exact.ptx, "shared");
  const std::size_t zeroing = zeroing_loops(exact.ptx);
  CHECK(zeroing == 1);
  // The 16-trip k loop is unrolled (optimize/unroll.hpp): its two tile loads appear 16 times each.
  CHECK(shared.checked == 0);
  CHECK(shared.unchecked == 2 + 2 * 16 + zeroing);
  const AccessCounts global = accesses(exact.ptx, "global");
  CHECK(global.checked == 2);  // a, b loads (runtime-sized)
  CHECK(global.unchecked == 1);  // the guarded c store
  CHECK(exact.ptx.find(".reqntid 16, 16, 1") != std::string::npos);

  const auto wider = cuda::lower(program, cuda::Target{90}, cuda::LowerOptions{.workgroup = Workgroup{32, 16, 1}});
  CHECK(accesses(wider.ptx, "shared").checked == 2 + 16);  // the stores and tb[k * 16 + lx]
  CHECK(accesses(wider.ptx, "shared").unchecked == 16 + zeroing);  // ta[ly * 16 + k]
  CHECK(wider.ptx.find(".reqntid 32, 16, 1") != std::string::npos);

  const auto plain = cuda::lower(program, cuda::Target{90});
  CHECK(accesses(plain.ptx, "shared").checked == 2 + 2 * 16);
  CHECK(plain.ptx.find(".reqntid") == std::string::npos);

  const auto off = cuda::lower(program, cuda::Target{90},
                               cuda::LowerOptions{.workgroup = Workgroup{16, 16, 1}, .optimize = false});
  CHECK(accesses(off.ptx, "shared").checked == 4);  // no optimizer: no unrolling either
  CHECK(off.ptx.find("unrolled") == std::string::npos);
}

TEST_CASE("indices a loop, the data or wrap-around can push out of range keep their checks") {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto in = b.buffer("in", Access::Read, Type::U32);
  auto out = b.buffer("out", Access::Output, Type::U32, 64);
  auto sized_at_run = b.buffer("sized_at_run", Access::ReadWrite, Type::U32);
  auto tile = b.buffer("tile", Access::Workgroup, Type::U32, 256);
  auto small = b.buffer("small", Access::Workgroup, Type::I32, 64);
  auto lx = b.let("lx", local_id(0));
  b.loop("k", u32(0), u32(256), [&](vyre::Expr k) { b.store(tile, k, k); });           // 0: proved
  b.loop("k2", u32(0), u32(300), [&](vyre::Expr k) { b.store(tile, k, k); });          // 1: past the end
  b.store(tile, in[lx], u32(1));                                                         // 2: data
  b.store(tile, lx + u32(0xFFFFFFFF), u32(2));                                           // 3: wraps
  b.store(tile, lx - u32(1), u32(3));                                                    // 4: wraps
  b.store(tile, (lx * u32(4)) + u32(3), u32(4));                                         // 5: <= 255
  b.store(tile, (lx * u32(4)) + u32(4), u32(5));                                         // 6: 256
  b.store(small, cast(Type::I32, lx), i32(6));                                           // 7: i32 >= 0
  b.store(small, cast(Type::I32, lx) - i32(1), i32(7));                                  // 8: -1
  b.loop("k3", lx, u32(64), [&](vyre::Expr k) { b.store(small, k, i32(8)); });        // 9: [lx, 63]
  b.store(tile, in[lx] & u32(255), u32(9));                                              // 10: masked
  b.store(tile, in[lx] % u32(256), u32(10));                                             // 11: remainder
  b.store(out, lx, u32(11));                                                             // 12: < 64, out's count
  b.store(out, lx + u32(1), u32(12));                                                    // 13: reaches 64
  b.store(sized_at_run, lx, u32(13));                                                    // 14: runtime-sized
  const Analysed a(b.build(), Workgroup{64, 1, 1});
  CHECK(proven_stores(a) == std::vector<bool>{true, false, false, false, false, true, false, true, false, true,
                                              true, true, true, false, false});
}

TEST_CASE("guards the program tests: BufLen and constant comparisons prove accesses inside them only") {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto x = b.buffer("x", Access::Read, Type::U32);
  auto y = b.buffer("y", Access::ReadWrite, Type::U32);
  auto tile = b.buffer("tile", Access::Workgroup, Type::U32, 100);
  auto i = b.let("i", invocation_id(0));
  b.if_(lt(i, y.len()), [&] { b.store(y, i, x[i]); },                    // 0: proved (y), x not
        [&] { b.store(y, i, u32(0)); });                                    // 1: else branch: not
  b.store(y, i, u32(1));                                                    // 2: after the if: not
  b.if_(gt(x.len(), i), [&] { b.store(y, i, u32(2)); });                   // 3: guard on x, store y: not
  b.if_(logical_and(lt(i, y.len()), lt(local_id(0), u32(50))), [&] {
    b.store(y, i, u32(3));                                                  // 4: proved
    b.store(tile, local_id(0) * u32(2), u32(4));                            // 5: <= 98: proved
  });
  b.if_(le(i, y.len()), [&] { b.store(y, i, u32(5)); });                   // 6: <= is not <: not
  b.if_(lt(invocation_id(0), u32(100)), [&] { b.store(tile, i, u32(6)); }); // 7: i is invocation_id(0): proved
  b.if_(lt(i, u32(101)), [&] { b.store(tile, i, u32(7)); });                // 8: 100 is out: not
  b.if_(lt(i, min(y.len(), u32(8))), [&] { b.store(y, i, u32(8)); });      // 9: min with BufLen: proved
  b.if_(un(vyre::UnOp::LogicalNot, ge(i, y.len())), [&] { b.store(y, i, u32(9)); });  // 10: proved
  b.loop("k", u32(0), y.len(), [&](vyre::Expr k) { b.store(y, k, u32(10)); b.store(y, k + u32(1), u32(11)); });
  // 11: k < BufLen(y): proved; 12: k + 1 may equal BufLen(y): not
  const Analysed a(b.build(), Workgroup{64, 1, 1});
  CHECK(proven_stores(a) ==
        std::vector<bool>{true, false, false, false, true, true, false, true, false, true, true, true, false});
  // The load x[i] under `i < BufLen(y)` keeps its check.
  CHECK(a.ranges.proven() == 7);
}

// x, y: runtime-sized inputs (buffers 0, 1); out: declared with 1024 (buffer 2). Three stores at
// InvocationId.x (through a variable, directly, under a guard on y) and one at InvocationId.y.
vyre::Program covered_program(bool barrier) {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto x = b.buffer("x", Access::Read, Type::U32);
  auto y = b.buffer("y", Access::Read, Type::U32);
  auto out = b.buffer("out", Access::Output, Type::U32, 1024);
  auto i = b.let("i", invocation_id(0));
  if (barrier) b.barrier();
  b.store(out, i, x[i] + y[i + u32(1)]);                  // 0: x[i] covered; y[i + 1] never
  b.store(out, invocation_id(0), x[local_id(0)]);         // 1: x[local_id] never
  b.if_(lt(i, y.len()), [&] { b.store(out, i, y[i]); });  // 2: y[i] by the program's guard
  b.store(out, invocation_id(1), u32(3));                 // 3: another axis: never
  return b.build();
}

TEST_CASE("covering buffers: an access at InvocationId.x loses its check only where its buffer covers every launch") {
  const Analysed none(covered_program(false), Workgroup{64, 1, 1});
  CHECK(proven_stores(none) == std::vector<bool>{false, false, false, false});
  CHECK(none.ranges.proven() == 1);  // y[i] under `i < BufLen(y)`
  CHECK(none.ranges.covering_used().empty());

  const Analysed all(covered_program(false), Workgroup{64, 1, 1}, {0, 1, 2});
  CHECK(proven_stores(all) == std::vector<bool>{true, true, true, false});
  CHECK(all.ranges.proven() == 1 + 3 + 1);  // y[i], the three out stores, x[i]
  // y proves nothing its guard does not: a dispatch need not cover it.
  CHECK(all.ranges.covering_used() == std::vector<std::uint32_t>{0, 2});

  const Analysed only_x(covered_program(false), Workgroup{64, 1, 1}, {0});
  CHECK(proven_stores(only_x) == std::vector<bool>{false, false, false, false});
  CHECK(only_x.ranges.proven() == 2);
  CHECK(only_x.ranges.covering_used() == std::vector<std::uint32_t>{0});

  // With a barrier the program runs in full-workgroup mode: no tail guard, so no covering facts.
  const Analysed full(covered_program(true), Workgroup{64, 1, 1}, {0, 1, 2});
  CHECK(full.ranges.proven() == 1);
  CHECK(full.ranges.covering_used().empty());
}

TEST_CASE("the PTX of a covering module: its accesses at InvocationId.x unpredicated, the tail guard unconditional") {
  const vyre::Program program = covered_program(false);
  vyre::validate_or_throw(program);
  const auto covered = cuda::lower(program, cuda::Target{90},
                                   cuda::LowerOptions{.workgroup = Workgroup{64, 1, 1}, .covering = {0, 1, 2}});
  CHECK(accesses(covered.ptx, "global").checked == 3);  // y[i + 1], x[local_id], out[invocation_id(1)]
  CHECK(accesses(covered.ptx, "global").unchecked == 5);
  // Only the buffers the proofs used are marked: their counts must cover N at every launch.
  std::vector<std::uint32_t> marked;
  for (const cuda::KernelParam& param : covered.whole.params)
    if (param.kind == cuda::ParamKind::ElementCount && param.covers_n) marked.push_back(param.buffer);
  CHECK(marked == std::vector<std::uint32_t>{0, 2});
  CHECK(covered.covering == marked);  // what the runtime must check at each launch
  // Launched only with the tail guard on, the entry does not read the flag.
  CHECK(covered.ptx.find("[p_tail_guard]") == std::string::npos);
  CHECK(covered.ptx.find("[p_n]") != std::string::npos);

  const auto plain = cuda::lower(program, cuda::Target{90}, cuda::LowerOptions{.workgroup = Workgroup{64, 1, 1}});
  CHECK(accesses(plain.ptx, "global").checked == 7);
  CHECK(plain.ptx.find("[p_tail_guard]") != std::string::npos);
  for (const cuda::KernelParam& param : plain.whole.params) CHECK_FALSE(param.covers_n);
  CHECK(plain.covering.empty());

  // Full-workgroup code has no tail guard: offered every buffer, the module keeps none.
  const vyre::Program full = covered_program(true);
  vyre::validate_or_throw(full);
  CHECK(cuda::global_buffers(full) == std::vector<std::uint32_t>{0, 1, 2});
  const auto unguarded = cuda::lower(full, cuda::Target{90},
                                     cuda::LowerOptions{.workgroup = Workgroup{64, 1, 1}, .covering = cuda::global_buffers(full)});
  CHECK(unguarded.covering.empty());
  CHECK(accesses(unguarded.ptx, "global").checked == 7);

  // Without the optimizer the covering buffers are ignored.
  const auto off = cuda::lower(program, cuda::Target{90},
                               cuda::LowerOptions{.workgroup = Workgroup{64, 1, 1}, .optimize = false, .covering = {0, 2}});
  CHECK(accesses(off.ptx, "global").checked == 8);
  CHECK(off.ptx.find("[p_tail_guard]") != std::string::npos);
}

TEST_CASE("an early return proves the rest of its block; grid_sync and assignment end the proof") {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto y = b.buffer("y", Access::ReadWrite, Type::U32);
  auto i = b.let("i", invocation_id(0));
  b.if_(ge(i, y.len()), [&] { b.ret(); });
  b.store(y, i, u32(1));                                                    // 0: proved
  b.let("j", i);
  b.store(y, var("j"), u32(2));                                             // 1: j = i: proved
  b.let("m", i);
  b.if_(lt(var("m"), y.len()), [&] {
    b.assign("m", var("m") + u32(1));
    b.store(y, var("m"), u32(3));                                           // 2: m assigned: not
  });
  b.grid_sync();
  b.store(y, invocation_id(0), u32(4));                                     // 3: after grid_sync: not
  const Analysed a(b.build(), Workgroup{64, 1, 1});
  CHECK(proven_stores(a) == std::vector<bool>{true, true, false, false});
}

TEST_CASE("a guard through a bool variable bound to a comparison, and an else-branch early exit") {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto y = b.buffer("y", Access::ReadWrite, Type::U32);
  auto i = b.let("i", invocation_id(0));
  b.let("inside", lt(i, y.len()));
  b.if_(var("inside"), [&] { b.store(y, i, u32(1)); });                     // 0: proved
  b.if_(lt(i, y.len()), [&] {}, [&] { b.ret(); });
  b.store(y, i, u32(2));                                                    // 1: proved
  const Analysed a(b.build(), Workgroup{64, 1, 1});
  CHECK(proven_stores(a) == std::vector<bool>{true, true});
}

TEST_CASE("atomics and loads on workgroup buffers are proved like stores") {
  vyre::ProgramBuilder b;
  b.workgroup(256);
  auto in = b.buffer("in", Access::Read, Type::U32);
  auto hist = b.buffer("hist", Access::Workgroup, Type::U32, 256);
  auto out = b.buffer("out", Access::Output, Type::U32, 256);
  auto i = b.let("i", invocation_id(0));
  b.let("old", atomic(vyre::AtomicOp::Add, "hist", in[i] & u32(255), u32(1)));
  b.barrier();
  b.let("count", hist[local_id(0)]);
  b.if_(lt(i, out.len()), [&] { b.store(out, i, var("count")); });
  const vyre::Program program = b.build();
  const Analysed a(program, Workgroup{256, 1, 1});
  CHECK(a.ranges.accesses() == 4);
  CHECK(a.ranges.proven() == 3);  // the atomic, the hist load and the guarded out store; not in[i]
  const auto lowered = cuda::lower(program, cuda::Target{90}, cuda::LowerOptions{.workgroup = Workgroup{256, 1, 1}});
  CHECK(count(lowered.ptx, "\n  atom.relaxed.gpu.shared.add.u32") == 1);
  CHECK(accesses(lowered.ptx, "global").checked == 1);
}

namespace {

// Program with one loop `k` over [from, to) storing k into tile[k % 16] (and nothing else).
vyre::Program counting_loop(vyre::Expr from, vyre::Expr to, bool with_inner_loop = false) {
  vyre::ProgramBuilder b;
  b.workgroup(32);
  auto in = b.buffer("in", Access::Read, Type::U32);
  auto tile = b.buffer("tile", Access::Workgroup, Type::U32, 16);
  b.let("unused", in.len());
  b.loop("k", std::move(from), std::move(to), [&](vyre::Expr k) {
    b.store(tile, k % u32(16), k);
    if (with_inner_loop) b.loop("j", u32(0), u32(2), [&](vyre::Expr j) { b.store(tile, j, k); });
  });
  return b.build();
}

const vyre::Node& first_loop(const vyre::Program& p) {
  for (const vyre::Node& n : p.body)
    if (n.kind == vyre::NodeKind::Loop) return n;
  FAIL("no loop");
  return p.body.front();
}

std::optional<opt::UnrollPlan> plan_of(const vyre::Program& p) {
  vyre::validate_or_throw(p);
  const opt::RangeAnalysis ranges(p, opt::RangeAssumptions{Workgroup{32, 1, 1}});
  return opt::unroll_plan(first_loop(p), ranges);
}

}  // namespace

TEST_CASE("unrolling: constant bounds with at most 16 trips, a small body and no inner loop") {
  auto four = plan_of(counting_loop(u32(0), u32(4)));
  REQUIRE(four);
  CHECK((four->from == 0 && four->to == 4));
  CHECK(plan_of(counting_loop(u32(3), u32(19))));                   // 16 trips
  CHECK_FALSE(plan_of(counting_loop(u32(3), u32(20))));             // 17
  CHECK(plan_of(counting_loop(u32(64) / u32(16), u32(4) * u32(3))));  // constant expressions
  CHECK_FALSE(plan_of(counting_loop(u32(0), buf_len("in"))));        // a launch value
  CHECK_FALSE(plan_of(counting_loop(u32(0), load("in", u32(0)) & u32(3))));  // a load: not stable
  CHECK_FALSE(plan_of(counting_loop(u32(0), u32(4), true)));        // an inner loop
  auto empty = plan_of(counting_loop(u32(5), u32(2)));              // no iteration
  REQUIRE(empty);
  CHECK(empty->to <= empty->from);

  // A body over kMaxUnrolledBodySize is left rolled.
  vyre::ProgramBuilder b;
  b.workgroup(32);
  auto tile = b.buffer("tile", Access::Workgroup, Type::U32, 16);
  b.loop("k", u32(0), u32(2), [&](vyre::Expr k) {
    vyre::Expr big = k;
    for (int i = 0; i < 40; ++i) big = big + u32(1);
    b.store(tile, u32(0), big);
  });
  CHECK_FALSE(plan_of(b.build()));
}

TEST_CASE("an unrolled loop's PTX: one copy of the body per iteration, no loop branch") {
  const vyre::Program program = counting_loop(u32(2), u32(6));
  vyre::validate_or_throw(program);
  const auto lowered = cuda::lower(program, cuda::Target{90}, cuda::LowerOptions{.workgroup = Workgroup{32, 1, 1}});
  CHECK(lowered.ptx.find("// loop k unrolled: 2 to 6") != std::string::npos);
  CHECK(lowered.ptx.find("$L_loop") == std::string::npos);
  // Each copy holds its iteration's k as a literal; the four stores need no bounds check (k % 16).
  for (int k = 2; k < 6; ++k) {
    INFO("k = " << k);
    CHECK(std::regex_search(lowered.ptx, std::regex("mov\\.b32 %r[0-9]+, 0x0000000" + std::to_string(k) + ";")));
  }
  const AccessCounts shared = accesses(lowered.ptx, "shared");
  CHECK(shared.checked == 0);
  CHECK(shared.unchecked == 4 + zeroing_loops(lowered.ptx));

  const vyre::Program none = counting_loop(u32(5), u32(2));
  const auto empty = cuda::lower(none, cuda::Target{90}, cuda::LowerOptions{.workgroup = Workgroup{32, 1, 1}});
  CHECK(accesses(empty.ptx, "shared").unchecked == zeroing_loops(empty.ptx));  // no store at all

  const vyre::Program rolled = counting_loop(u32(0), buf_len("in"));
  const auto kept = cuda::lower(rolled, cuda::Target{90}, cuda::LowerOptions{.workgroup = Workgroup{32, 1, 1}});
  CHECK(kept.ptx.find("$L_loop") != std::string::npos);
  CHECK(kept.ptx.find("unrolled") == std::string::npos);
}

TEST_CASE("a long chain of aliased guard variables neither overflows the stack nor proves beyond its depth limit") {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto y = b.buffer("y", Access::ReadWrite, Type::U32);
  auto i = b.let("i", invocation_id(0));
  b.let("c0", lt(i, y.len()));
  constexpr int kChain = 200000;
  for (int k = 1; k <= kChain; ++k) {
    std::string name = "c";
    name += std::to_string(k);
    std::string previous = "c";
    previous += std::to_string(k - 1);
    b.let(name, var(previous));
  }
  b.if_(var("c1"), [&] { b.store(y, i, u32(1)); });                       // 0: one alias: proved
  std::string last = "c";
  last += std::to_string(kChain);
  b.if_(var(last), [&] { b.store(y, i, u32(2)); });                        // 1: too deep: kept
  const Analysed a(b.build(), Workgroup{64, 1, 1});
  CHECK(proven_stores(a) == std::vector<bool>{true, false});
}

TEST_CASE("a variable defined before a guard is bounded by the guard's facts where it is read") {
  constexpr std::uint32_t w = 64, h = 48;
  vyre::ProgramBuilder b;
  b.workgroup(32, 8);
  auto in = b.buffer("in", Access::Read, Type::U32, w * h);
  auto out = b.buffer("out", Access::Output, Type::U32, w * h);
  auto x = b.let("x", invocation_id(0));
  auto y = b.let("y", invocation_id(1));
  auto i = b.let("i", y * u32(w) + x);  // before the guard: x and y unbounded, i's interval full
  auto inside = logical_and(logical_and(gt(x, u32(0)), lt(x, u32(w - 1))), logical_and(gt(y, u32(0)), lt(y, u32(h - 1))));
  b.if_(
      inside,
      [&] {
        b.store(out, i - u32(w), in[i + u32(w)]);  // 0: i in [w + 1, (h - 1) w - 2]: both proved
        b.store(out, i + u32(w + 1), u32(1));       // 1: reaches h w - 1: proved
        b.store(out, i + u32(2 * w), u32(2));       // 2: reaches (h + 1) w - 2: kept
      },
      [&] { b.store(out, i, u32(3)); });            // 3: else: x, y unbounded: kept
  b.store(out, i, u32(4));                          // 4: after the if: kept
  b.if_(lt(x, u32(w)), [&] {
    b.let("j", i);  // an alias of i, read under a guard on x alone: y still unbounded
    b.store(out, var("j"), u32(5));                 // 5: kept
  });
  const Analysed a(b.build(), Workgroup{32, 8, 1});
  CHECK(proven_stores(a) == std::vector<bool>{true, true, false, false, false, false});
  CHECK(a.ranges.proven() == 3);  // and the load in[i + w]
}

TEST_CASE("re-evaluating variables under guards: nested variables, a depth limit and a node budget") {
  auto name = [](const char* stem, int k) {
    std::string n = stem;  // (not stem + ...: g++ 12's -Wrestrict false positive)
    n += std::to_string(k);
    return n;
  };
  // v(k) = 2^k x through nested variables: read under x < 4, v(3) = 8x < 32 (out's count) proves;
  // its definition (x < 64) gives 504, so outside the guard it does not.
  {
    vyre::ProgramBuilder b;
    b.workgroup(64);
    auto out = b.buffer("out", Access::Output, Type::U32, 32);
    auto x = b.let("x", local_id(0));
    b.let("v0", x);
    for (int k = 1; k <= 3; ++k) b.let(name("v", k), var(name("v", k - 1)) + var(name("v", k - 1)));
    b.if_(lt(x, u32(4)), [&] { b.store(out, var("v3"), u32(1)); });  // 0: proved
    b.store(out, var("v3"), u32(2));                                  // 1: kept
    const Analysed a(b.build(), Workgroup{64, 1, 1});
    CHECK(proven_stores(a) == std::vector<bool>{true, false});
    CHECK(a.ranges.reevaluated_nodes() > 0);
  }
  // w(k) = the sum of 8 copies of w(k-1): evaluating w(6) again in full would walk ~8^6 nodes per
  // read, and it is read 2000 times under a guard. The depth limit and the budget bound the work.
  {
    vyre::ProgramBuilder b;
    b.workgroup(64);
    auto out = b.buffer("out", Access::Output, Type::U32, 1u << 20);
    auto x = b.let("x", local_id(0));
    b.let("w0", x);
    for (int k = 1; k <= 6; ++k) {
      vyre::Expr sum = var(name("w", k - 1));
      for (int t = 1; t < 8; ++t) sum = sum + var(name("w", k - 1));
      b.let(name("w", k), sum);
    }
    b.if_(lt(x, u32(4)), [&] {
      for (int r = 0; r < 2000; ++r) b.store(out, var("w6"), u32(r));
    });
    const Analysed a(b.build(), Workgroup{64, 1, 1});
    CHECK(a.ranges.accesses() == 2000);
    CHECK(a.ranges.reevaluated_nodes() > 0);
    CHECK(a.ranges.reevaluated_nodes() <= opt::RangeAnalysis::kReevaluationBudget);
  }
}
