// Soundness of the optimizer's value-range analysis against the semantics: random programs (u32,
// i32 and u64 arithmetic over builtins, literals, loads and variables; guards, early returns and
// constant loops) run on reference_cpu, and every value they store must lie in the interval the
// analysis gave the stored expression (guards `x < y`, `x <= y` and `x != 0` included), and every
// workgroup-buffer store (and BufLen-guarded global store) the analysis proved in bounds must only
// ever see in-range indices. And random tail-guarded programs under the covering facts the runtime
// assumes first (every global buffer offered, cuda::global_buffers): every store to the covering buffer the analysis
// proves in bounds sees only indices below N on reference_cpu. A failure prints the program as JSON.
#include <doctest/doctest.h>

#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "lowering.hpp"
#include "optimize/value_range.hpp"
#include "reference_backend.hpp"
#include "vyre/backend.hpp"
#include "vyre/builder.hpp"
#include "vyre/json.hpp"
#include "vyre/validate.hpp"

namespace {

using namespace vyre::dsl;
using vyre::Access;
using vyre::BinOp;
using vyre::Expr;
using vyre::Type;
using vyre::UnOp;
namespace opt = vyre::cuda::optimize;

constexpr std::uint32_t kTile = 64;         // the workgroup buffer's count
constexpr std::uint32_t kStatements = 12;   // per program
constexpr std::uint32_t kInputs = 40;       // elements of `in` (some local ids read past it: 0)
constexpr std::uint32_t kProbe = 50;        // elements of `probe`, a global buffer stored under guards

const vyre::host::Backend& reference() { return vyre::cudatest::reference_backend(); }

class Generator {
 public:
  explicit Generator(std::uint32_t seed) : rng_(seed) {}

  std::uint32_t pick(std::uint32_t n) { return static_cast<std::uint32_t>(rng_() % n); }

  std::uint32_t literal() {
    switch (pick(5)) {
      case 0: return 0;
      case 1: return 0xFFFFFFFFu - pick(4);
      case 2: return pick(2) == 0 ? 1u << pick(32) : 0x80000000u;
      default: return pick(70);
    }
  }

  Expr leaf() {
    switch (pick(9)) {
      case 0:
      case 1: return u32(literal());
      case 2: return local_id(pick(2));
      case 3: return invocation_id(pick(2));
      case 4: return workgroup_id(pick(2));
      case 5: return subgroup_lane();
      case 6: return load("in", local_id(0));
      case 7: return num_workgroups(pick(2));
      default: return vars_.empty() ? u32(7) : var(vars_[pick(static_cast<std::uint32_t>(vars_.size()))]);
    }
  }

  Expr u32_expr(int depth) {
    if (depth <= 0 || pick(5) == 0) return leaf();
    static const BinOp ops[] = {BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Mod, BinOp::Shl,
                                BinOp::Shr, BinOp::Min, BinOp::Max, BinOp::AbsDiff, BinOp::SatAdd,
                                BinOp::SatSub, BinOp::SatMul, BinOp::MulHigh, BinOp::And, BinOp::Or,
                                BinOp::Xor, BinOp::Rotl};
    switch (pick(8)) {
      case 0:
      case 1:
      case 2: return bin(ops[pick(std::size(ops))], u32_expr(depth - 1), u32_expr(depth - 1));
      case 3: return bin(pick(2) == 0 ? BinOp::And : BinOp::Mod, u32_expr(depth - 1), u32(pick(300) + 1));
      case 4: return select(condition(depth - 1), u32_expr(depth - 1), u32_expr(depth - 1));
      case 5: {
        static const UnOp un_ops[] = {UnOp::Not, UnOp::Neg, UnOp::Popcount, UnOp::Clz, UnOp::Ctz, UnOp::ReverseBits};
        return un(un_ops[pick(std::size(un_ops))], u32_expr(depth - 1));
      }
      case 6: return pick(2) == 0 ? cast(Type::U32, i32_expr(depth - 1)) : bitcast(Type::U32, i32_expr(depth - 1));
      default: return cast(Type::U32, u64_expr(depth - 1));
    }
  }

  Expr i32_expr(int depth) {
    if (depth <= 0 || pick(4) == 0) return pick(2) == 0 ? cast(Type::I32, leaf()) : i32(static_cast<std::int32_t>(literal()));
    static const BinOp ops[] = {BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Mod, BinOp::Min,
                                BinOp::Max, BinOp::And, BinOp::Or, BinOp::Xor, BinOp::SatAdd, BinOp::SatSub};
    switch (pick(4)) {
      case 0: return bin(BinOp::Shr, i32_expr(depth - 1), u32_expr(depth - 1));
      case 1: return un(pick(2) == 0 ? UnOp::Abs : UnOp::Neg, i32_expr(depth - 1));
      default: return bin(ops[pick(std::size(ops))], i32_expr(depth - 1), i32_expr(depth - 1));
    }
  }

  Expr u64_expr(int depth) {
    Expr a = cast(Type::U64, pick(2) == 0 ? u32_expr(depth - 1) : leaf());
    Expr b = cast(Type::U64, pick(2) == 0 ? u32_expr(depth - 1) : leaf());
    static const BinOp ops[] = {BinOp::Add, BinOp::Mul, BinOp::Sub, BinOp::Shr, BinOp::MulHigh};
    const BinOp op = ops[pick(std::size(ops))];
    if (op == BinOp::Shr) return bin(BinOp::Shr, a, u32(pick(40)));
    return bin(op, a, b);
  }

  Expr condition(int depth) {
    static const BinOp cmps[] = {BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge, BinOp::Eq, BinOp::Ne};
    const BinOp op = cmps[pick(std::size(cmps))];
    if (pick(3) == 0) return bin(op, i32_expr(depth), i32_expr(depth));
    return bin(op, u32_expr(depth), u32_expr(depth));
  }

  void bind(const std::string& name) { vars_.push_back(name); }
  void unbind() { vars_.pop_back(); }

 private:
  std::mt19937 rng_;
  std::vector<std::string> vars_;
};

// Statement j records `value` at out[j * T + slot] and flags it written; with `tile`, it also stores
// into the workgroup buffer at `value` (so its proof can be checked against the recorded values).
void record(vyre::ProgramBuilder& b, std::uint32_t j, std::uint32_t total, const Expr& value, bool tile) {
  const Expr slot = u32(j * total) + var("slot");
  if (tile) b.store(vyre::Buf{"tile"}, value, u32(1));
  b.store(vyre::Buf{"out"}, slot, value);
  b.store(vyre::Buf{"written"}, slot, u32(1));
}

// A random program over a launch of `grid` workgroups of `workgroup` (2-D), kStatements records.
vyre::Program random_program(Generator& g, const std::array<std::uint32_t, 3>& workgroup,
                             const std::array<std::uint32_t, 3>& grid) {
  const std::uint32_t width = workgroup[0] * grid[0];
  const std::uint32_t total = width * workgroup[1] * grid[1];
  vyre::ProgramBuilder b;
  b.workgroup(workgroup[0], workgroup[1], workgroup[2]);
  b.buffer("in", Access::Read, Type::U32);
  b.buffer("out", Access::Output, Type::U32, kStatements * total);
  b.buffer("written", Access::Output, Type::U32, kStatements * total);
  b.buffer("tile", Access::Workgroup, Type::U32, kTile);
  b.buffer("probe", Access::Output, Type::U32, kProbe);
  b.let("slot", invocation_id(1) * u32(width) + invocation_id(0));
  for (std::uint32_t v = 0; v < 3; ++v) {
    std::string name = "v";
    name += std::to_string(v);
    b.let(name, g.u32_expr(2));
    g.bind(name);
  }
  b.let("m", u32(0));  // assigned below: its interval must be the full range
  for (std::uint32_t j = 0; j < kStatements; ++j) {
    const bool tile = g.pick(2) == 0;
    switch (g.pick(6)) {
      case 0: {  // a guard: the guarded value is below the bound inside
        Expr x = g.u32_expr(2), y = g.u32_expr(2);
        if (g.pick(4) == 0) {  // x != 0: not zero inside (the else branch makes it 0: recorded there by
                               // another statement's slots would collide, so only one branch records)
          if (g.pick(2) == 0) {
            b.if_(ne(x, u32(0)), [&] { record(b, j, total, x, tile); });
          } else {
            b.if_(ne(x, u32(0)), [&] {}, [&] { record(b, j, total, x / (x + u32(1)), tile); });
          }
          break;
        }
        const BinOp op = g.pick(2) == 0 ? BinOp::Lt : BinOp::Le;
        b.if_(bin(op, x, y), [&] { record(b, j, total, x, tile); }, [&] { b.store(vyre::Buf{"tile"}, y, u32(2)); });
        break;
      }
      case 1: {  // an early return: the rest of the program knows the guard failed
        Expr x = g.u32_expr(1), y = g.u32_expr(1);
        b.if_(ge(x, y), [&] { b.ret(); });
        record(b, j, total, x, tile);
        break;
      }
      case 2: {  // a constant loop (unrolled) or a data-bounded one
        Expr to = g.pick(2) == 0 ? u32(g.pick(20)) : g.u32_expr(1) % u32(9);
        std::string k = "k";
        k += std::to_string(j);
        b.loop(k, u32(g.pick(4)), to, [&](Expr kv) {
          g.bind(k);
          record(b, j, total, g.u32_expr(2) + kv * u32(g.pick(3)), tile);
          g.unbind();
        });
        break;
      }
      case 3:
        if (g.pick(2) == 0) {  // a BufLen guard proves the global store; its value is then recorded
          // Often right at the boundary (x == BufLen happens), else anything.
          Expr x = g.pick(3) == 0 ? g.u32_expr(2)
                   : g.pick(2) == 0 ? invocation_id(0) % u32(kProbe + 2)
                                    : local_id(0) + u32(kProbe - 8);
          const bool strict = g.pick(2) != 0;
          b.if_(bin(strict ? BinOp::Lt : BinOp::Le, x, buf_len("probe")), [&] {
            b.store(vyre::Buf{"probe"}, x, u32(1));
            b.store(vyre::Buf{"out"}, u32(j * total) + var("slot"), x);
            b.store(vyre::Buf{"written"}, u32(j * total) + var("slot"), u32(1));
          });
          break;
        }
        b.assign("m", var("m") + g.u32_expr(1));
        record(b, j, total, var("m"), tile);
        break;
      default: record(b, j, total, g.u32_expr(3), tile); break;
    }
  }
  for (int v = 0; v < 3; ++v) g.unbind();
  return b.build();
}

std::uint32_t word(const vyre::host::ByteVector& bytes, std::size_t i) {
  std::uint32_t w = 0;
  std::memcpy(&w, bytes.data() + 4 * i, 4);
  return w;
}

// The Store nodes that write `out`, each with the stored value's interval and whether the tile
// store just before it (same value) was proved in bounds; by statement index j (from the index
// expression's literal j * total).
struct Recorded {
  const vyre::Node* store = nullptr;
  const vyre::Node* tile = nullptr;
};

void collect(const std::vector<vyre::Node>& body, std::vector<Recorded>& out) {
  for (std::size_t i = 0; i < body.size(); ++i) {
    const vyre::Node& n = body[i];
    if (n.kind == vyre::NodeKind::Store && n.name == "out") {
      Recorded r{&n, nullptr};
      if (i > 0 && body[i - 1].kind == vyre::NodeKind::Store && (body[i - 1].name == "tile" || body[i - 1].name == "probe"))
        r.tile = &body[i - 1];
      out.push_back(r);
    }
    collect(n.body, out);
    collect(n.else_body, out);
  }
}

}  // namespace

TEST_CASE("every value reference_cpu stores lies in the analysis's interval; proved tile stores stay in range") {
  std::size_t checked_values = 0, proved_tiles = 0, proved_probes = 0, programs = 0;
  const std::array<std::array<std::uint32_t, 3>, 3> workgroups{{{8, 2, 1}, {32, 1, 1}, {4, 4, 1}}};
  for (std::uint32_t seed = 1; seed <= 300; ++seed) {
    Generator g(seed);
    const auto& workgroup = workgroups[seed % workgroups.size()];
    const std::array<std::uint32_t, 3> grid{2 + seed % 3, 2, 1};
    const vyre::Program program = random_program(g, workgroup, grid);
    INFO("seed " << seed << ": " << vyre::to_json(program));
    vyre::validate_or_throw(program);
    const opt::RangeAnalysis ranges(program, opt::RangeAssumptions{workgroup});
    std::vector<std::uint32_t> in(kInputs);
    for (std::uint32_t i = 0; i < kInputs; ++i) in[i] = static_cast<std::uint32_t>(g.pick(0xFFFFFFFFu)) >> g.pick(32);
    vyre::DispatchConfig config;
    config.grid = grid;
    const auto compiled = reference().compile(program);
    const std::vector<vyre::host::Bytes> inputs{std::as_bytes(std::span(in))};
    const auto outputs = reference().dispatch(compiled, inputs, config);
    const std::uint32_t total = workgroup[0] * grid[0] * workgroup[1] * grid[1];
    std::vector<Recorded> recorded;
    collect(program.body, recorded);
    // Statement j's records are its out stores in program order; j from the index literal.
    for (const Recorded& r : recorded) {
      const vyre::Expr& index = r.store->exprs[0];  // u32(j * total) + slot
      const std::uint32_t j = static_cast<std::uint32_t>(index.args.at(0).bits) / total;
      const auto interval = ranges.range(r.store->exprs[1]);
      REQUIRE(interval.has_value());
      const bool proved = r.tile != nullptr && ranges.in_bounds(*r.tile);
      proved_tiles += proved && r.tile->name == "tile";
      proved_probes += proved && r.tile->name == "probe";
      for (std::uint32_t slot = 0; slot < total; ++slot) {
        const std::size_t at = std::size_t{j} * total + slot;
        if (word(outputs.at(1), at) == 0) continue;  // not written by this invocation
        const std::uint32_t value = word(outputs.at(0), at);
        INFO("statement " << j << ", slot " << slot << ": value " << value << " not in [" << interval->lo << ", "
                          << interval->hi << "]");
        CHECK(value >= interval->lo);
        CHECK(value <= interval->hi);
        if (proved) CHECK(value < (r.tile->name == "tile" ? kTile : kProbe));
        ++checked_values;
      }
    }
    ++programs;
  }
  MESSAGE(programs << " programs, " << checked_values << " values checked, " << proved_tiles
                   << " tile stores and " << proved_probes << " guarded global stores proved");
  CHECK(checked_values > 10000);
  CHECK(proved_tiles > 20);
  CHECK(proved_probes > 20);
}

namespace {

constexpr std::uint32_t kCovered = 50;  // N, and the count of `probe`: a covering buffer with no slack

// A random tail-guarded program: each statement stores into `probe` at an index that is
// InvocationId.x (directly or through a variable) or near it (one off, through an assigned variable,
// or any expression), maybe under a guard, and records the index it used.
vyre::Program random_covered_program(Generator& g) {
  vyre::ProgramBuilder b;
  b.workgroup(32);
  b.buffer("in", Access::Read, Type::U32);
  b.buffer("out", Access::Output, Type::U32, kStatements * kCovered);
  b.buffer("written", Access::Output, Type::U32, kStatements * kCovered);
  b.buffer("probe", Access::Output, Type::U32, kCovered);
  b.let("slot", invocation_id(0));
  b.let("i", invocation_id(0));
  b.let("moved", invocation_id(0));  // assigned below: not the invocation index any more
  b.assign("moved", var("moved") + u32(g.pick(2)));
  for (std::uint32_t j = 0; j < kStatements; ++j) {
    Expr index = u32(0);
    switch (g.pick(7)) {
      case 0: index = invocation_id(0); break;
      case 1: index = var("i"); break;
      case 2: index = var("i") + u32(1 + g.pick(2)); break;
      case 3: index = var("i") - u32(1); break;
      case 4: index = var("moved"); break;
      case 5: index = invocation_id(0) + invocation_id(1); break;
      default: index = g.u32_expr(2); break;
    }
    auto body = [&] {
      b.store(vyre::Buf{"probe"}, index, u32(1));
      b.store(vyre::Buf{"out"}, u32(j * kCovered) + var("slot"), index);
      b.store(vyre::Buf{"written"}, u32(j * kCovered) + var("slot"), u32(1));
    };
    if (g.pick(3) == 0) {
      b.if_(g.condition(1), body);
    } else {
      body();
    }
  }
  return b.build();
}

}  // namespace

TEST_CASE("covering buffers: a store proved by the fact N <= BufLen only ever sees indices below N") {
  std::size_t proved = 0, kept = 0, checked = 0;
  for (std::uint32_t seed = 1; seed <= 200; ++seed) {
    Generator g(seed);
    const vyre::Program program = random_covered_program(g);
    INFO("seed " << seed << ": " << vyre::to_json(program));
    vyre::validate_or_throw(program);
    const std::array<std::uint32_t, 3> workgroup{32, 1, 1};
    // As the runtime lowers a program first: every candidate assumed to cover the dispatch.
    const opt::RangeAnalysis ranges(program, opt::RangeAssumptions{workgroup, vyre::cuda::global_buffers(program)});
    std::vector<std::uint32_t> in(kInputs);
    for (std::uint32_t i = 0; i < kInputs; ++i) in[i] = static_cast<std::uint32_t>(g.pick(0xFFFFFFFFu)) >> g.pick(32);
    vyre::DispatchConfig config;
    config.dispatch_elements = kCovered;  // the tail guard: invocations 0..49 of two workgroups of 32
    const auto compiled = reference().compile(program);
    const std::vector<vyre::host::Bytes> inputs{std::as_bytes(std::span(in))};
    const auto outputs = reference().dispatch(compiled, inputs, config);
    std::vector<const vyre::Node*> probes;
    std::function<void(const std::vector<vyre::Node>&)> walk = [&](const std::vector<vyre::Node>& body) {
      for (const vyre::Node& n : body) {
        if (n.kind == vyre::NodeKind::Store && n.name == "probe") probes.push_back(&n);
        walk(n.body);
      }
    };
    walk(program.body);
    REQUIRE(probes.size() == kStatements);
    for (std::uint32_t j = 0; j < kStatements; ++j) {
      const bool in_bounds = ranges.in_bounds(*probes[j]);
      (in_bounds ? proved : kept) += 1;
      if (!in_bounds) continue;
      for (std::uint32_t slot = 0; slot < kCovered; ++slot) {
        const std::size_t at = std::size_t{j} * kCovered + slot;
        if (word(outputs.at(1), at) == 0) continue;
        INFO("statement " << j << ", invocation " << slot);
        CHECK(word(outputs.at(0), at) < kCovered);
        ++checked;
      }
    }
  }
  MESSAGE(proved << " probe stores proved, " << kept << " kept, " << checked << " proved indices checked");
  CHECK(proved > 300);
  CHECK(kept > 600);
  CHECK(checked > 10000);
}
