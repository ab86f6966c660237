// Inspects the emitter's PTX without a GPU: float rounding and flush-to-zero rules, the entry
// parameter lists against KernelEntry::params, predicated out-of-bounds accesses, execution modes
// (tail guard, grid barrier, phases), targets and the declared op set.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "codegen/entry_parts.hpp"
#include "codegen/expressions.hpp"
#include "lowering.hpp"
#include "math/algorithms/functions.hpp"
#include "math/math_library.hpp"
#include "optimize/unroll.hpp"
#include "optimize/value_range.hpp"
#include "program_corpus.hpp"
#include "ptx_text.hpp"
#include "vyre/builder.hpp"
#include "vyre/error.hpp"
#include "vyre/ops.hpp"

namespace {

using namespace vyre::dsl;
using vyre::Access;
using vyre::Type;
namespace cuda = vyre::cuda;

const cuda::Target kSm90{90};

struct Lowered {
  std::string label;
  cuda::LoweredProgram lowered;
};

std::vector<ptx_test::CorpusProgram> corpus_programs() {
  auto programs = ptx_test::op_corpus(cuda::lowered_ops(kSm90));
  auto structures = ptx_test::structure_corpus();
  programs.insert(programs.end(), structures.begin(), structures.end());
  return programs;
}

// The corpus as the runtime lowers it: optimized, specialised to each program's workgroup size.
const std::vector<Lowered>& lowered_corpus() {
  static const std::vector<Lowered> corpus = [] {
    std::vector<Lowered> out;
    for (const auto& p : corpus_programs())
      out.push_back({p.label, cuda::lower(p.program, kSm90, cuda::LowerOptions{.workgroup = p.program.workgroup_size})});
    return out;
  }();
  return corpus;
}

// The corpus without the optimizer: every access keeps its bounds check.
const std::vector<Lowered>& unoptimized_corpus() {
  static const std::vector<Lowered> corpus = [] {
    std::vector<Lowered> out;
    for (const auto& p : corpus_programs())
      out.push_back({p.label, cuda::lower(p.program, kSm90, cuda::LowerOptions{.optimize = false})});
    return out;
  }();
  return corpus;
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

std::string expected_param(const cuda::KernelParam& param) {
  std::string type = param.bytes == 8 ? ".u64" : ".u32";
  return ".param " + type + " " + cuda::codegen::param_name(param);
}

std::vector<cuda::KernelEntry> all_entries(const cuda::LoweredProgram& lowered) {
  std::vector<cuda::KernelEntry> entries{lowered.whole};
  entries.insert(entries.end(), lowered.phases.begin(), lowered.phases.end());
  if (lowered.elementwise) entries.push_back(*lowered.elementwise);
  return entries;
}

const ptx_test::EntryText& find_entry(const std::vector<ptx_test::EntryText>& entries,
                                      std::string_view name) {
  auto it = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.name == name; });
  REQUIRE(it != entries.end());
  return *it;
}

bool is_float_op(const std::string& op) { return contains(op, ".f32") || contains(op, ".f64"); }

vyre::Program elementwise() {
  vyre::ProgramBuilder b;
  b.workgroup(128);
  auto x = b.buffer("x", Access::Read, Type::F32);
  auto y = b.buffer("y", Access::Output, Type::F32, 1000);
  auto i = b.let("i", invocation_id(0));
  b.store(y, i, x[i] / f32(3.0f));
  return b.build();
}

vyre::Program with_barrier() {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto y = b.buffer("y", Access::Output, Type::U32, 64);
  b.barrier();
  b.store(y, invocation_id(0), u32(1));
  return b.build();
}

vyre::Program grid_synced(std::uint32_t syncs) {
  vyre::ProgramBuilder b;
  b.workgroup(32);
  auto wg = b.buffer("wg", Access::Workgroup, Type::U32, 5);
  auto y = b.buffer("y", Access::ReadWrite, Type::U32, 64);
  for (std::uint32_t s = 0; s <= syncs; ++s) {
    if (s > 0) b.grid_sync();
    b.store(wg, local_id(0), u32(s));
    b.store(y, invocation_id(0), y[invocation_id(0)] + wg[u32(0)]);
  }
  return b.build();
}

}  // namespace

TEST_CASE("no instruction flushes subnormals and float div/sqrt/rcp round to nearest even") {
  std::size_t checked = 0;
  for (const auto& [label, lowered] : lowered_corpus()) {
    INFO(label);
    // The approximate instructions, each a first guess the algorithm corrects
    // (plugins/shared/math/algorithms): rsqrt.approx.ftz.f32 in the f32 functions of
    // kRsqrtGuessOps, inverse_sqrt, asin and acos (their argument is 0, inf, NaN or normal:
    // inverse_sqrt.hpp scales a subnormal x first, asin_acos.hpp sqrt_parts_f32's is 0 or normal),
    // and rcp.approx.ftz.f32 in those of kRcpGuessOps (functions.hpp; where .ftz changes nothing the
    // result depends on: common.hpp recip_refined_f32).
    const auto is_f32_of = [&](vyre::UnOp op) {
      return label.starts_with("un." + std::string(vyre::un_op_name(op)) + ".f32");
    };
    const bool reciprocal = std::any_of(vyre::math::kRcpGuessOps.begin(), vyre::math::kRcpGuessOps.end(), is_f32_of);
    const bool root = std::any_of(vyre::math::kRsqrtGuessOps.begin(), vyre::math::kRsqrtGuessOps.end(), is_f32_of);
    for (const auto& entry : ptx_test::entries(lowered.ptx)) {
      for (const auto& instruction : entry.instructions) {
        std::string op = ptx_test::opcode(instruction);
        INFO(instruction);
        if (reciprocal && op == "rcp.approx.ftz.f32") continue;
        if (root && op == "rsqrt.approx.ftz.f32") continue;
        CHECK_FALSE(contains(op, ".ftz"));
        CHECK_FALSE(contains(op, ".approx"));
        bool rounded_op = op.rfind("div.", 0) == 0 || op.rfind("sqrt.", 0) == 0 ||
                          op.rfind("rcp.", 0) == 0 || op.rfind("add.", 0) == 0 ||
                          op.rfind("sub.", 0) == 0 || op.rfind("mul.", 0) == 0 ||
                          op.rfind("fma.", 0) == 0;
        if (!rounded_op || !is_float_op(op)) continue;
        CHECK(contains(op, ".rn."));
        ++checked;
      }
    }
  }
  CHECK(checked > 0);
}

TEST_CASE("every entry's parameter list is exactly its KernelEntry::params") {
  for (const auto& [label, lowered] : lowered_corpus()) {
    INFO(label);
    auto texts = ptx_test::entries(lowered.ptx);
    auto entries = all_entries(lowered);
    REQUIRE(texts.size() == entries.size());
    for (const auto& entry : entries) {
      const auto& text = find_entry(texts, entry.name);
      REQUIRE(text.params.size() == entry.params.size());
      for (std::size_t i = 0; i < entry.params.size(); ++i)
        CHECK(text.params[i] == expected_param(entry.params[i]));
    }
  }
}

TEST_CASE("parameter layout follows lowering.hpp") {
  vyre::ProgramBuilder b;
  b.workgroup(32);
  b.buffer("a", Access::Read, Type::U8);
  b.buffer("w", Access::Workgroup, Type::U32, 4);
  b.buffer("o", Access::Output, Type::U32, 8);
  b.store(vyre::Buf{"o"}, invocation_id(0), vyre::Buf{"a"}[invocation_id(0)]);
  auto lowered = cuda::lower(b.build(), kSm90);
  const auto& params = lowered.whole.params;
  REQUIRE(params.size() == 6);
  CHECK((params[0].kind == cuda::ParamKind::BufferPointer && params[0].buffer == 0 && params[0].bytes == 8));
  CHECK((params[1].kind == cuda::ParamKind::BufferPointer && params[1].buffer == 2));
  CHECK((params[2].kind == cuda::ParamKind::ElementCount && params[2].buffer == 0 && params[2].bytes == 4));
  CHECK((params[3].kind == cuda::ParamKind::ElementCount && params[3].buffer == 2));
  CHECK(params[4].kind == cuda::ParamKind::DispatchN);
  CHECK(params[5].kind == cuda::ParamKind::TailGuard);
  CHECK(lowered.whole.shared_bytes == 16);
  CHECK_FALSE(lowered.whole.cooperative);
  CHECK(lowered.phases.empty());
  CHECK(lowered.grid_barrier_bytes == 0);
}

TEST_CASE("without the optimizer, buffer loads, stores and atomics are predicated on their bounds") {
  std::size_t stores = 0;
  for (const auto& [label, lowered] : unoptimized_corpus()) {
    INFO(label);
    for (const auto& entry : ptx_test::entries(lowered.ptx)) {
      std::size_t unpredicated_shared_stores = 0;
      std::size_t zeroing_loops = 0;
      for (const auto& instruction : entry.instructions) {
        std::string op = ptx_test::opcode(instruction);
        INFO(instruction);
        bool barrier_state = op == "ld.acquire.gpu.global.u32" || op == "st.relaxed.gpu.global.u32" ||
                             op == "st.release.gpu.global.u32" ||
                             op == "atom.acq_rel.gpu.global.add.u32";
        if (barrier_state) continue;  // the grid barrier's own state, not a buffer element
        // The elementwise entry's vector accesses run only where every lane is in bounds (the
        // branch to its scalar path guards them), so they carry no predicate.
        const bool vector = entry.name == "vyre_elementwise" && (contains(op, ".v4.") || contains(op, ".v2."));
        if (vector) continue;
        if (op.rfind("st.global", 0) == 0 || op.rfind("ld.global", 0) == 0 ||
            op.rfind("ld.shared", 0) == 0 || op.rfind("atom.", 0) == 0) {
          CHECK(ptx_test::is_predicated(instruction));
          stores += op.rfind("st.", 0) == 0;
        }
        if (op.rfind("st.shared", 0) == 0 && !ptx_test::is_predicated(instruction))
          ++unpredicated_shared_stores;
        if (op == "bra" && contains(instruction, "zero_shared_done_")) ++zeroing_loops;
      }
      // The only unpredicated shared store is the zeroing's (one per zeroing, loop or not).
      CHECK(unpredicated_shared_stores == zeroing_loops);
    }
  }
  CHECK(stores > 0);
}

// A buffer element access of the whole entry: not the grid barrier's state, not the shared zeroing,
// not an inline math copy's read of its table (`ld.global.nc`, which the emitter uses for nothing
// else).
bool buffer_access(const std::string& op) {
  bool barrier_state = op == "ld.acquire.gpu.global.u32" || op == "st.relaxed.gpu.global.u32" ||
                       op == "st.release.gpu.global.u32" || op == "atom.acq_rel.gpu.global.add.u32";
  if (op.rfind("ld.global.nc", 0) == 0) return false;
  return !barrier_state && (op.rfind("st.global", 0) == 0 || op.rfind("ld.global", 0) == 0 ||
                            op.rfind("ld.shared", 0) == 0 || op.rfind("st.shared", 0) == 0 ||
                            op.rfind("atom.", 0) == 0);
}

// The accesses the analysis proved, once per emitted copy: an access in an unrolled loop's body is
// emitted once per iteration (and an unrolled loop's bounds, side-effect free, not at all).
std::size_t emitted_proven(const std::vector<vyre::Node>& body, const cuda::optimize::RangeAnalysis& ranges,
                           std::size_t copies) {
  std::function<std::size_t(const vyre::Expr&)> in_expr = [&](const vyre::Expr& e) {
    std::size_t n = (e.kind == vyre::ExprKind::Load || e.kind == vyre::ExprKind::Atomic) && ranges.in_bounds(e);
    for (const auto& arg : e.args) n += in_expr(arg);
    return n;
  };
  std::size_t total = 0;
  for (const vyre::Node& n : body) {
    if (auto plan = cuda::optimize::unroll_plan(n, ranges)) {
      total += emitted_proven(n.body, ranges, copies * (plan->to > plan->from ? plan->to - plan->from : 0));
      continue;
    }
    for (const auto& e : n.exprs) total += copies * in_expr(e);
    if (n.kind == vyre::NodeKind::Store && ranges.in_bounds(n)) total += copies;
    total += emitted_proven(n.body, ranges, copies) + emitted_proven(n.else_body, ranges, copies);
  }
  return total;
}

TEST_CASE("with the optimizer, exactly the accesses the value-range analysis proved lose their predicate") {
  std::size_t proven = 0;
  for (const auto& p : corpus_programs()) {
    INFO(p.label);
    const cuda::optimize::RangeAnalysis ranges(p.program, {p.program.workgroup_size});
    proven += ranges.proven();
    const auto lowered = cuda::lower(p.program, kSm90, cuda::LowerOptions{.workgroup = p.program.workgroup_size});
    const auto texts = ptx_test::entries(lowered.ptx);
    const auto& main = find_entry(texts, "vyre_main");
    std::size_t unpredicated = 0, zeroing_stores = 0;
    for (const auto& instruction : main.instructions) {
      const std::string op = ptx_test::opcode(instruction);
      if (op == "bra" && contains(instruction, "zero_shared_done_")) ++zeroing_stores;  // one per zeroing
      if (buffer_access(op) && !ptx_test::is_predicated(instruction)) ++unpredicated;
    }
    CHECK(unpredicated == emitted_proven(p.program.body, ranges, 1) + zeroing_stores);
    const auto wg = p.program.workgroup_size;
    CHECK(contains(main.text, fmt::format(".reqntid {}, {}, {}", wg[0], wg[1], wg[2])));
  }
  CHECK(proven > 0);  // the corpus has provable accesses (workgroup buffers indexed by local_id)
}

TEST_CASE("the tail guard is emitted only for programs that allow it") {
  auto guarded = cuda::lower(elementwise(), kSm90);
  auto guarded_entry = ptx_test::entries(guarded.ptx).front();
  auto reads = [&](std::string_view param) {
    return std::any_of(guarded_entry.instructions.begin(), guarded_entry.instructions.end(),
                       [&](const auto& i) { return contains(i, param); });
  };
  CHECK(reads("[p_tail_guard]"));
  CHECK(reads("[p_n]"));
  auto full = cuda::lower(with_barrier(), kSm90);
  // Full-workgroup mode: the tail-guard parameter exists but is never read.
  auto text = ptx_test::entries(full.ptx).front();
  for (const auto& instruction : text.instructions) CHECK_FALSE(contains(instruction, "[p_tail_guard]"));
  CHECK(contains(full.ptx, "bar.sync 0;"));
}

TEST_CASE("grid_sync programs get a cooperative whole entry and one entry per phase") {
  auto lowered = cuda::lower(grid_synced(2), kSm90);
  CHECK(lowered.whole.cooperative);
  CHECK(lowered.whole.params.back().kind == cuda::ParamKind::GridBarrier);
  CHECK(lowered.whole.params.back().bytes == 8);
  CHECK(lowered.grid_barrier_bytes == cuda::codegen::kGridBarrierBytes);
  REQUIRE(lowered.phases.size() == 3);
  for (const auto& phase : lowered.phases) {
    CHECK_FALSE(phase.cooperative);
    CHECK(phase.params.back().kind == cuda::ParamKind::TailGuard);
    CHECK(phase.shared_bytes == 32);
  }
  auto texts = ptx_test::entries(lowered.ptx);
  const auto& whole = find_entry(texts, lowered.whole.name);
  auto count = [&](std::string_view op) {
    return std::count_if(whole.instructions.begin(), whole.instructions.end(),
                         [&](const auto& i) { return ptx_test::opcode(i) == op; });
  };
  CHECK(count("atom.acq_rel.gpu.global.add.u32") == 2);
  CHECK(count("st.release.gpu.global.u32") == 2);
  CHECK(count("ld.acquire.gpu.global.u32") == 4);
  CHECK(count("fence.acq_rel.gpu") == 4);
  // No module-level state: nothing but the entries and math functions at module scope.
  CHECK_FALSE(contains(lowered.ptx, ".global .align"));
  for (const auto& phase : lowered.phases) {
    const auto& text = find_entry(texts, phase.name);
    for (const auto& instruction : text.instructions) CHECK_FALSE(contains(instruction, "acq_rel"));
  }
}

TEST_CASE("workgroup buffers that exceed static shared memory are a limit error") {
  vyre::ProgramBuilder b;
  b.workgroup(32);
  auto big = b.buffer("big", Access::Workgroup, Type::F64, 7000);
  auto o = b.buffer("o", Access::Output, Type::F64, 32);
  b.store(o, local_id(0), big[local_id(0)]);
  try {
    cuda::lower(b.build(), kSm90);
    FAIL("expected a limit error");
  } catch (const vyre::Error& e) {
    CHECK(e.code() == VYRE_ERR_LIMIT);
    CHECK(contains(e.what(), "Fix:"));
  }
}

TEST_CASE("targets") {
  CHECK(cuda::parse_target("sm_90").sm == 90);
  CHECK(cuda::parse_target("86").sm == 86);
  CHECK(cuda::Target{90}.name() == "sm_90");
  CHECK(cuda::Target{90}.ptx_isa_version() == "7.8");
  CHECK(cuda::Target{80}.ptx_isa_version() == "7.0");
  CHECK(cuda::Target{75}.ptx_isa_version() == "6.3");
  for (const char* bad : {"", "sm_", "sm_9x", "sm_61", "compute_90", "90a", "sm_999"}) {
    INFO(bad);
    try {
      cuda::parse_target(bad);
      FAIL("expected an error");
    } catch (const vyre::Error& e) {
      CHECK(e.code() == VYRE_ERR_INVALID_ARGUMENT);
    }
  }
  auto lowered = cuda::lower(elementwise(), cuda::Target{80});
  CHECK(contains(lowered.ptx, ".target sm_80"));
  CHECK(contains(lowered.ptx, ".version 7.0"));
}

TEST_CASE("the declared op set is the catalog minus transcendentals the math library lacks") {
  auto ops = cuda::lowered_ops(kSm90);
  for (const auto& op : vyre::op_catalog()) {
    bool library = op.family == vyre::OpFamily::Un &&
                   (op.un_op == vyre::UnOp::InverseSqrt ||
                    static_cast<int>(op.un_op) >= static_cast<int>(vyre::UnOp::Exp));
    bool expected = !library || cuda::math_function(op.un_op, op.type) != nullptr;
    INFO(op.id);
    CHECK((std::find(ops.begin(), ops.end(), op.id) != ops.end()) == expected);
  }
}

// A program applying `op` (f32) to `uses` different values, with one entry (indexed by the local
// id, so not elementwise: no second entry with more copies).
vyre::Program math_uses(vyre::UnOp op, int uses) {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto x = b.buffer("x", Access::Read, Type::F32);
  auto y = b.buffer("y", Access::Output, Type::F32, 64);
  auto i = b.let("i", local_id(0));
  auto sum = un(op, x[i]);
  for (int k = 1; k < uses; ++k) sum = sum + un(op, x[i] + f32(static_cast<float>(k)));
  b.store(y, i, sum);
  return b.build();
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_CASE("without the optimizer transcendentals call the math library, defined once before the entries") {
  const auto* exp = cuda::math_function(vyre::UnOp::Exp, Type::F32);
  if (exp == nullptr) return;  // the library does not provide it; lowered_ops says so
  auto ptx = cuda::lower(math_uses(vyre::UnOp::Exp, 2), kSm90, cuda::LowerOptions{.optimize = false}).ptx;
  std::string marker = std::string(cuda::codegen::kMathMarker) + exp->name;
  auto first = ptx.find(marker);
  REQUIRE(first != std::string::npos);
  CHECK(ptx.find(marker, first + 1) == std::string::npos);
  CHECK(first < ptx.find(".visible .entry"));
  CHECK(occurrences(ptx, "call (vyre_math_ret), " + exp->name + ", (vyre_math_arg);") == 2);
  CHECK(occurrences(ptx, "vyre math inline") == 0);
}

TEST_CASE("transcendentals are inlined at each use, their data defined once before the entries") {
  for (vyre::UnOp op : {vyre::UnOp::Exp, vyre::UnOp::Tan, vyre::UnOp::InverseSqrt}) {
    const auto* fn = cuda::math_function(op, Type::F32);
    if (fn == nullptr) continue;
    INFO(fn->name);
    auto ptx = cuda::lower(math_uses(op, 3), kSm90).ptx;
    // No call, no definition of the function itself: three inline copies.
    CHECK_FALSE(contains(ptx, "call"));
    CHECK_FALSE(contains(ptx, ".func"));
    CHECK(occurrences(ptx, "// vyre math inline: " + fn->name) == 3);
    // Each copy names its own registers (m0_, m1_, m2_).
    for (const char* prefix : {".reg .f32 %m0_f<", ".reg .f32 %m1_f<", ".reg .f32 %m2_f<"}) CHECK(contains(ptx, prefix));
    // The data the copies read (tan's table of 2/pi) is defined once, before the entry.
    for (const std::string& dep : fn->dependencies) {
      std::string marker = std::string(cuda::codegen::kMathMarker) + dep;
      CHECK(occurrences(ptx, marker) == 1);
      CHECK(ptx.find(marker) < ptx.find(".visible .entry"));
    }
  }
}

TEST_CASE("past the inline budget of a function, math uses become calls") {
  for (vyre::UnOp op : {vyre::UnOp::Tan, vyre::UnOp::Sin}) {
    const auto* fn = cuda::math_function(op, Type::F32);
    if (fn == nullptr) continue;
    INFO(fn->name);
    REQUIRE(fn->instructions > 0);
    auto ptx = cuda::lower(math_uses(op, 200), kSm90).ptx;
    const std::size_t calls = occurrences(ptx, "call (vyre_math_ret), " + fn->name + ", (vyre_math_arg);");
    CHECK(calls > 0);
    CHECK(occurrences(ptx, std::string(cuda::codegen::kMathMarker) + fn->name) == 1);
    if (op == vyre::UnOp::Tan) {
      const auto inlined = static_cast<std::size_t>(cuda::codegen::kMathInlineBudget / static_cast<std::uint32_t>(fn->instructions));
      CHECK(occurrences(ptx, "// vyre math inline: " + fn->name) == inlined);
      CHECK(calls == 200 - inlined);
    } else {
      // f32 sin inline is its parts and a selection (each of the 200 arguments is a new value).
      CHECK(occurrences(ptx, "// vyre math inline: vyre_sin_cos_parts_f32") + calls == 200);
      CHECK(occurrences(ptx, "// vyre math inline: vyre_sin_select_f32") + calls == 200);
    }
  }
}

// f32 sin and cos of one value share the reduction and both kernels where the first use dominates
// the second and the value is not assigned in between; elsewhere each computes its own.
namespace trig_sharing {

enum class Uses { Straight, Reassigned, SinInsideIf, SinBeforeIf };

vyre::Program program(Uses uses) {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto x = b.buffer("x", Access::Read, Type::F32);
  auto y = b.buffer("y", Access::Output, Type::F32, 64);
  auto i = b.let("i", local_id(0));
  auto v = b.let("v", x[i]);
  switch (uses) {
    case Uses::Straight:
    case Uses::Reassigned: {
      auto s = b.let("s", un(vyre::UnOp::Sin, v));
      if (uses == Uses::Reassigned) b.assign("v", v + f32(1.0f));
      b.store(y, i, s * un(vyre::UnOp::Cos, v) + un(vyre::UnOp::Sin, v));
      break;
    }
    case Uses::SinInsideIf:
      b.if_(lt(i, u32(7)), [&] { b.store(y, i, un(vyre::UnOp::Sin, v)); });
      b.store(y, i + u32(1), un(vyre::UnOp::Cos, v));
      break;
    case Uses::SinBeforeIf: {
      auto s = b.let("s", un(vyre::UnOp::Sin, v));
      b.if_(lt(i, u32(7)), [&] { b.store(y, i, s + un(vyre::UnOp::Cos, v)); });
      break;
    }
  }
  return b.build();
}

std::size_t parts(const std::string& ptx) { return occurrences(ptx, "// vyre math inline: vyre_sin_cos_parts_f32"); }
std::size_t selects(const std::string& ptx) {
  return occurrences(ptx, "// vyre math inline: vyre_sin_select_f32") +
         occurrences(ptx, "// vyre math inline: vyre_cos_select_f32");
}

}  // namespace trig_sharing

TEST_CASE("f32 sin and cos of one value in straight-line code reduce it once") {
  auto ptx = cuda::lower(trig_sharing::program(trig_sharing::Uses::Straight), kSm90).ptx;
  CHECK(trig_sharing::parts(ptx) == 1);
  CHECK(trig_sharing::selects(ptx) == 3);
  CHECK_FALSE(contains(ptx, "vyre_sin_f32"));
  CHECK_FALSE(contains(ptx, "call"));
}

TEST_CASE("f32 sin and cos parts are not reused after the value is assigned") {
  auto ptx = cuda::lower(trig_sharing::program(trig_sharing::Uses::Reassigned), kSm90).ptx;
  CHECK(trig_sharing::parts(ptx) == 2);
  CHECK(trig_sharing::selects(ptx) == 3);
}

TEST_CASE("f32 sin and cos parts are reused inside a branch, not after one") {
  auto before = cuda::lower(trig_sharing::program(trig_sharing::Uses::SinBeforeIf), kSm90).ptx;
  CHECK(trig_sharing::parts(before) == 1);  // sin before the if dominates cos inside it
  auto inside = cuda::lower(trig_sharing::program(trig_sharing::Uses::SinInsideIf), kSm90).ptx;
  CHECK(trig_sharing::parts(inside) == 2);  // sin inside the if does not reach cos after it
  // Without the optimizer both are calls of the library functions.
  auto plain = cuda::lower(trig_sharing::program(trig_sharing::Uses::Straight), kSm90, cuda::LowerOptions{.optimize = false}).ptx;
  CHECK(trig_sharing::parts(plain) == 0);
  CHECK(occurrences(plain, "call (vyre_math_ret), vyre_sin_f32, (vyre_math_arg);") == 2);
  CHECK(occurrences(plain, "call (vyre_math_ret), vyre_cos_f32, (vyre_math_arg);") == 1);
}

TEST_CASE("literals and canonical NaN stores") {
  vyre::ProgramBuilder b;
  b.workgroup(32);
  auto y = b.buffer("y", Access::Output, Type::F32, 32);
  auto d = b.buffer("d", Access::Output, Type::F64, 32);
  auto h = b.buffer("h", Access::Output, Type::F16, 32);
  auto g = b.buffer("g", Access::Output, Type::BF16, 32);
  b.store(y, invocation_id(0), f32(1.5f));
  b.store(d, invocation_id(0), f64(-2.0));
  b.store(h, invocation_id(0), f32(0.0f) / f32(0.0f));
  b.store(g, invocation_id(0), f32(0.0f) / f32(0.0f));
  auto ptx = cuda::lower(b.build(), kSm90).ptx;
  CHECK(contains(ptx, "0f3FC00000"));
  CHECK(contains(ptx, "0dC000000000000000"));
  CHECK(contains(ptx, "0x7FC00000"));
  CHECK(contains(ptx, "0x7FF8000000000000"));
  CHECK(contains(ptx, "0x7E00"));
  CHECK(contains(ptx, "0x7FC0"));
  CHECK(contains(ptx, "cvt.rn.f16.f32"));
  CHECK(contains(ptx, "cvt.rn.bf16.f32"));
  CHECK_FALSE(contains(cuda::lower(b.build(), cuda::Target{75}).ptx, "bf16"));
}

// SPEC's signed zeros are the PTX ISA's min/max (codegen/float_binary.cpp); the GPU tests and conform
// check them on the device.
TEST_CASE("float min/max are PTX's min/max alone, without a signed-zero fix-up") {
  vyre::ProgramBuilder b;
  b.workgroup(32);
  auto x = b.buffer("x", Access::Read, Type::F32, 32);
  auto w = b.buffer("w", Access::Read, Type::F64, 32);
  auto y = b.buffer("y", Access::Output, Type::F32, 32);
  auto d = b.buffer("d", Access::Output, Type::F64, 32);
  b.store(y, invocation_id(0), max(x[invocation_id(0)], f32(-0.0f)) + min(x[invocation_id(0)], f32(0.0f)));
  b.store(d, invocation_id(0), max(w[invocation_id(0)], f64(-0.0)) + min(w[invocation_id(0)], f64(0.0)));
  for (bool optimize : {true, false}) {
    const std::string ptx = cuda::lower(b.build(), kSm90, cuda::LowerOptions{.workgroup = std::array<std::uint32_t, 3>{32, 1, 1},
                                                                              .optimize = optimize}).ptx;
    // One of each per copy of the body (the elementwise entry has several), and no fix-up compare.
    const std::size_t copies = occurrences(ptx, "max.f32 ");
    CHECK(copies >= 1);
    CHECK(occurrences(ptx, "min.f32 ") == copies);
    CHECK(occurrences(ptx, "max.f64 ") == copies);
    CHECK(occurrences(ptx, "min.f64 ") == copies);
    CHECK_FALSE(contains(ptx, "setp.eq.f"));
  }
}

TEST_CASE("elementwise programs get a vectorised entry; others do not") {
  const auto lowered = cuda::lower(elementwise(), kSm90);
  REQUIRE(lowered.elementwise.has_value());
  CHECK(lowered.elementwise->name == "vyre_elementwise");
  CHECK(lowered.elementwise->invocations_per_thread == 4);
  CHECK(lowered.whole.invocations_per_thread == 1);
  CHECK(lowered.elementwise->params.size() == lowered.whole.params.size());
  const auto texts = ptx_test::entries(lowered.ptx);
  const auto& text = find_entry(texts, "vyre_elementwise");
  auto count = [&](std::string_view opcode) {
    return std::count_if(text.instructions.begin(), text.instructions.end(),
                         [&](const auto& i) { return ptx_test::opcode(i) == opcode; });
  };
  CHECK(count("ld.global.v4.f32") == 1);
  CHECK(count("st.global.v4.b32") == 1);  // f32 stores go out as canonicalised bits
  CHECK(count("div.rn.f32") == 5);        // 4 vector lanes + the scalar lane loop

  CHECK_FALSE(cuda::lower(with_barrier(), kSm90).elementwise.has_value());
  CHECK_FALSE(cuda::lower(grid_synced(1), kSm90).elementwise.has_value());

  // Not elementwise: an index other than the invocation index, control flow, geometry builtins,
  // atomics, narrow storage, an index variable that is assigned.
  auto single = [](auto body, Type element = Type::U32) {
    vyre::ProgramBuilder b;
    b.workgroup(64);
    b.buffer("x", Access::Read, element, 64);
    b.buffer("y", Access::ReadWrite, Type::U32, 64);
    body(b);
    return cuda::lower(b.build(), kSm90).elementwise.has_value();
  };
  const vyre::Buf x{"x"};
  const vyre::Buf y{"y"};
  CHECK(single([&](vyre::ProgramBuilder& b) { b.store(y, invocation_id(0), x[invocation_id(0)]); }));
  CHECK_FALSE(single([&](vyre::ProgramBuilder& b) { b.store(y, invocation_id(0), x[invocation_id(0) + u32(1)]); }));
  CHECK_FALSE(single([&](vyre::ProgramBuilder& b) {
    b.if_(lt(invocation_id(0), u32(9)), [&] { b.store(y, invocation_id(0), u32(1)); });
  }));
  CHECK_FALSE(single([&](vyre::ProgramBuilder& b) { b.store(y, invocation_id(0), local_id(0)); }));
  CHECK_FALSE(single([&](vyre::ProgramBuilder& b) { b.store(y, invocation_id(0), num_workgroups(0)); }));
  CHECK_FALSE(single([&](vyre::ProgramBuilder& b) {
    b.let("old", atomic(vyre::AtomicOp::Add, "y", invocation_id(0), u32(1)));
  }));
  CHECK_FALSE(single([&](vyre::ProgramBuilder& b) { b.store(y, invocation_id(0), x[invocation_id(0)]); }, Type::U8));
  CHECK_FALSE(single([&](vyre::ProgramBuilder& b) {
    auto i = b.let("i", invocation_id(0));
    b.assign("i", i + u32(1));
    b.store(y, i, u32(1));
  }));
  CHECK(single([&](vyre::ProgramBuilder& b) {
    auto i = b.let("i", invocation_id(0));
    auto j = b.let("j", i);
    b.let("v", x[j] + buf_len("y"));
    b.assign("v", var("v") * u32(3));
    b.store(y, i, var("v") + y[j]);
  }));
}

TEST_CASE("sharded modules: every entry takes workgroup_base and grid_x, and the x ids use them") {
  const cuda::LowerOptions sharded{.sharded = true};
  for (const auto& [label, plain] : lowered_corpus()) {
    INFO(label);
    for (const auto& entry : all_entries(plain)) {
      CHECK(std::none_of(entry.params.begin(), entry.params.end(), [](const cuda::KernelParam& p) {
        return p.kind == cuda::ParamKind::WorkgroupBase || p.kind == cuda::ParamKind::GridX;
      }));
    }
  }
  for (const auto& corpus_program : ptx_test::structure_corpus()) {
    INFO(corpus_program.label);
    const auto lowered = cuda::lower(corpus_program.program, kSm90, sharded);
    const auto texts = ptx_test::entries(lowered.ptx);
    for (const auto& entry : all_entries(lowered)) {
      const auto& params = entry.params;
      // Layout item 5: right after tail_guard, before the grid barrier.
      auto tail = std::find_if(params.begin(), params.end(),
                               [](const auto& p) { return p.kind == cuda::ParamKind::TailGuard; });
      REQUIRE(tail != params.end());
      REQUIRE(params.end() - tail >= 3);
      CHECK(tail[1].kind == cuda::ParamKind::WorkgroupBase);
      CHECK(tail[2].kind == cuda::ParamKind::GridX);
      const auto& text = find_entry(texts, entry.name);
      REQUIRE(text.params.size() == params.size());
      for (std::size_t i = 0; i < params.size(); ++i) CHECK(text.params[i] == expected_param(params[i]));
    }
  }
}

TEST_CASE("a sharded entry adds workgroup_base to %ctaid.x and reads NumWorkgroups.x from grid_x") {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto y = b.buffer("y", Access::Output, Type::U32, 64);
  b.barrier();  // full-workgroup mode: no elementwise entry, no tail guard
  b.store(y, invocation_id(0), workgroup_id(0) + num_workgroups(0));
  const auto program = b.build();
  const auto plain = cuda::lower(program, kSm90);
  const auto sharded = cuda::lower(program, kSm90, cuda::LowerOptions{.sharded = true});
  CHECK(contains(plain.ptx, "%nctaid.x"));
  CHECK_FALSE(contains(plain.ptx, "p_workgroup_base"));
  CHECK_FALSE(contains(sharded.ptx, "%nctaid.x"));  // NumWorkgroups.x is the parameter
  const auto texts = ptx_test::entries(sharded.ptx);
  const auto& whole = find_entry(texts, "vyre_main");
  const auto loads_base = std::count_if(whole.instructions.begin(), whole.instructions.end(), [](const auto& i) {
    return contains(i, "ld.param.u32") && contains(i, "[p_workgroup_base]");
  });
  CHECK(loads_base == 1);
  // Two x ids (InvocationId.x and WorkgroupId.x), each %ctaid.x plus the base.
  auto adds = [](const ptx_test::EntryText& entry) {
    return std::count_if(entry.instructions.begin(), entry.instructions.end(),
                         [](const auto& i) { return ptx_test::opcode(i) == "add.u32"; });
  };
  const auto plain_texts = ptx_test::entries(plain.ptx);
  CHECK(adds(whole) == adds(find_entry(plain_texts, "vyre_main")) + 2);
}

TEST_CASE("a sharded elementwise entry starts at workgroup_base * workgroup.x and checks vector alignment") {
  const auto lowered = cuda::lower(elementwise(), kSm90, cuda::LowerOptions{.sharded = true});
  REQUIRE(lowered.elementwise.has_value());
  const auto texts = ptx_test::entries(lowered.ptx);
  const auto& text = find_entry(texts, "vyre_elementwise");
  auto has = [&](std::string_view opcode, std::string_view operand) {
    return std::any_of(text.instructions.begin(), text.instructions.end(), [&](const auto& i) {
      return ptx_test::opcode(i) == opcode && contains(i, operand);
    });
  };
  CHECK(has("ld.param.u32", "[p_workgroup_base]"));
  CHECK(has("shl.b64", ", 2;"));  // base % 4 joins the alignment bits
  // One more wide multiply than the plain entry: workgroup_base * %ntid.x.
  auto wide_multiplies = [](const ptx_test::EntryText& entry) {
    return std::count_if(entry.instructions.begin(), entry.instructions.end(),
                         [](const auto& i) { return ptx_test::opcode(i) == "mul.wide.u32"; });
  };
  const auto plain_texts = ptx_test::entries(cuda::lower(elementwise(), kSm90).ptx);
  CHECK(wide_multiplies(text) == wide_multiplies(find_entry(plain_texts, "vyre_elementwise")) + 1);
}
