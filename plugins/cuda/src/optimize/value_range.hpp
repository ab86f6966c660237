// The optimizer's value-range analysis (issue 11 §2): an analysis pass over a validated program,
// separate from emission, that bounds every integer and bool expression by an unsigned interval of
// its bits and proves which buffer accesses can never be out of bounds. The emitter then drops the
// bounds predicate of exactly those accesses (codegen/memory_access.cpp); every other access keeps
// it, so the SPEC's out-of-bounds semantics (a load yields 0, a store is dropped, an atomic yields 0
// and changes nothing) are unchanged.
//
// What it knows, all of it sound for every invocation of every launch the module can see:
//   - literals; builtins: LocalId < the launch workgroup size (RangeAssumptions::workgroup, else
//     < 1024, CUDA's limit), WorkgroupId/NumWorkgroups by CUDA's grid limits, InvocationId =
//     WorkgroupId * workgroup + LocalId, SubgroupLane < 32, SubgroupSize = 32, BufLen of a
//     buffer declared with count > 0 (every workgroup buffer, and a global one so declared) =
//     that count;
//   - operators: add/sub/mul/shl without wrap-around (else the full range), and with a constant,
//     shr, div and mod/rem by a non-zero divisor, min/max, or/xor, popcount/clz/ctz, not,
//     select, casts and bitcasts that keep the value; comparisons are bool [0, 1];
//   - variables: a Let that is never assigned keeps its value's interval, and where it is read
//     under guards, its initialiser's interval under them (a stable value is the same wherever it
//     is read); an assigned one is the full range; a loop variable is in [from.lo, to.hi - 1]
//     (loop variables are read-only);
//   - guards the program tests: inside `if x < y` (<=, >, >=, ==, logical and/or/not of them, a
//     never-assigned bool variable bound to one), and after `if c { ...return }`, x is below y's
//     upper bound; inside `if x != 0`, x is not 0. The facts hold only for "stable" expressions,
//     whose value cannot change within an invocation (literals, builtins, BufLen, never-assigned
//     variables and pure operators of them; loads are not stable). A grid_sync ends every fact.
// Divisions it proves plain (div and mod/rem of integers): the divisor's interval excludes 0 and,
// for signed types, the MIN / -1 overflow is excluded too (the divisor's interval excludes -1, or
// the dividend's excludes MIN). The emitter then lowers them without the zero-divisor selects
// (codegen/int_binary.cpp); PTX's div/rem give SPEC's results for every other operand pair.
// Accesses it proves in bounds:
//   - buffers declared with count > 0 (workgroup buffers; global ones declared with a count): the
//     index's interval is below the count. SPEC §Buffers fixes such a binding's length at exactly
//     count elements; the kit refuses any other binding (kit bound_elements), and the runtime
//     refuses to launch with another length (KernelParam::declared_count, kernel_args.cpp);
//   - runtime-sized global buffers (count 0): only under a dominating guard `x < BufLen(b)` (or
//     `x < min(BufLen(b), ...)`, or a loop `Loop(x, _, BufLen(b))`) for the same stable index x and
//     the same buffer b: their length is a launch parameter;
//   - and, for the covering global buffers of the launch (RangeAssumptions::covering; declared with
//     a count or not), where the index is InvocationId.x itself (or a never-assigned variable bound
//     to it): every launch of such a module applies the tail guard, so an invocation that runs has
//     InvocationId.x < N, and binds each covering buffer with at least N elements, so
//     InvocationId.x < BufLen(b) holds from the first statement on. The runtime checks both facts
//     before every launch (runtime/exec_plan.cpp picks the module; kernel_args.cpp refuses any
//     other launch), and lowers a module without them for a dispatch that lacks them.
//
// LocalId is launch-dependent: DispatchConfig::workgroup_override changes the workgroup size. The
// runtime therefore lowers (and caches) one module per effective workgroup size and passes it here
// through LowerOptions::workgroup; entries lowered with a known size also declare `.reqntid` with
// it, so a launch with any other size fails instead of running unchecked accesses.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "vyre/ir.hpp"

namespace vyre::cuda::optimize {

// The values of an integer (or bool) expression: its bits, zero-extended to 64, lie in [lo, hi].
// A signed value's interval is over its two's-complement bits (-1 as i32 is 0xFFFFFFFF).
struct Interval {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;

  friend bool operator==(const Interval&, const Interval&) = default;
};

// Facts about every launch of the lowered module.
struct RangeAssumptions {
  // The workgroup size of every launch (x, y, z), when the module is specialised to one.
  std::optional<std::array<std::uint32_t, 3>> workgroup;
  // Global buffers (indices into Program::buffers, ascending) that cover the
  // dispatch: every launch applies the tail guard and binds each with at least N elements (see
  // above). Ignored for a program that runs in full-workgroup mode (vyre::needs_full_workgroups),
  // whose code has no tail guard.
  std::vector<std::uint32_t> covering = {};
};

class RangeAnalysis {
 public:
  // Analyse a validated program. Never throws for a validated program; an ill-typed expression
  // simply gets no interval (and any access depending on it keeps its check).
  RangeAnalysis(const Program& program, const RangeAssumptions& assumptions);

  // The interval of an integer or bool expression of the analysed program (by address) that is a
  // statement's operand (Let/Assign value, Store index and value, If condition, Loop bounds) or an
  // access's index, under the guards that dominate it; nullopt for floats, ill-typed expressions
  // and other expressions (sub-expressions are analysed, but not kept).
  std::optional<Interval> range(const Expr& expr) const;

  // Whether an access can never be out of bounds: a Load or Atomic expression, or a Store node.
  bool in_bounds(const Expr& access) const { return proven_.count(&access) != 0; }
  bool in_bounds(const Node& store) const { return proven_.count(&store) != 0; }

  // Whether a Bin(Div) or Bin(Mod) expression of integers can never divide by zero (nor, signed,
  // overflow as MIN / -1): the emitter may use PTX's div/rem directly.
  bool plain_division(const Expr& bin) const { return plain_divisions_.count(&bin) != 0; }

  // A Loop node whose bounds are constant and side-effect free (stable expressions of one value):
  // its [from, to). nullopt for any other loop or node.
  std::optional<std::pair<std::uint32_t, std::uint32_t>> constant_bounds(const Node& loop) const;

  // Loads, stores and atomics seen / proven in bounds (for tests and statistics).
  std::size_t accesses() const { return accesses_; }
  std::size_t proven() const { return proven_.size(); }

  // The buffers of RangeAssumptions::covering that proved an access no guard of the program
  // proves (ascending): the facts a launch must have for this module's proofs to hold.
  const std::vector<std::uint32_t>& covering_used() const { return covering_used_; }

  // A never-assigned variable read under guards has its initialiser evaluated again under them
  // (through at most 4 nested variables); at most this many expression nodes per analysis are so
  // evaluated, whatever the program. reevaluated_nodes(): how many were.
  static constexpr std::uint64_t kReevaluationBudget = std::uint64_t{1} << 20;
  std::uint64_t reevaluated_nodes() const { return reevaluated_nodes_; }

 private:
  friend class RangeWalk;
  std::unordered_map<const Expr*, Interval> ranges_;
  std::unordered_set<const void*> proven_;
  std::unordered_set<const Expr*> plain_divisions_;
  std::unordered_map<const Node*, std::pair<std::uint32_t, std::uint32_t>> constant_loops_;
  std::vector<std::uint32_t> covering_used_;
  std::size_t accesses_ = 0;
  std::uint64_t reevaluated_nodes_ = 0;
};

// The full interval of a value of type `t` (bool: [0, 1]; 64-bit types: [0, 2^64 - 1]).
Interval full_range(Type t);

}  // namespace vyre::cuda::optimize
