// The op catalog (SPEC §4): every op id a backend may declare and conform certifies, with its
// signature and the comparison tolerance of SPEC §5. The catalog is the single source of truth for
// which operator is defined on which type: the validator, the plugins and conform all ask it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vyre/ir.hpp"

namespace vyre {

enum class OpFamily : std::uint8_t {
  Bin,       // bin.<op>.<type>
  Un,        // un.<op>.<type>
  Cast,      // cast.<from>.<to>
  Bitcast,   // bitcast.<from>.<to>
  Fma,       // fma.<type>
  Select,    // select.<type>
  Load,      // load.<storage>
  Store,     // store.<storage>
  Atomic,    // atomic.<op>.<type>[.workgroup]
  Subgroup,  // subgroup.ballot, subgroup.shuffle.<type>, subgroup.reduce.<op>.<type>
  Builtin,   // builtin.<name>
  NodeOp,    // node.<name>
  Mem,       // mem.workgroup
  Dispatch,  // dispatch.fixpoint
};

std::string_view op_family_name(OpFamily f);

// How conform compares a candidate's result with the reference's (SPEC §5).
struct Tolerance {
  std::uint32_t max_ulp = 0;  // 0 = bit-exact
  bool exact() const { return max_ulp == 0; }
  friend bool operator==(const Tolerance&, const Tolerance&) = default;
};

enum class SubgroupKind : std::uint8_t { None, Ballot, Shuffle, Reduce };

// The builtins of `builtin.<name>`.
enum class Builtin : std::uint8_t {
  InvocationId, LocalId, WorkgroupId, NumWorkgroups, SubgroupLane, SubgroupSize, BufLen
};
std::string_view builtin_name(Builtin b);
std::optional<Builtin> parse_builtin(std::string_view name);

struct OpInfo {
  std::string id;                 // e.g. "bin.add.u32"
  OpFamily family = OpFamily::Bin;
  std::vector<Type> operands;     // operand value types (storage type for load/store: the value)
  std::optional<Type> result;     // result value type, if the op yields a value
  Tolerance tolerance;

  // The decoded parts of the id; only those meaningful for `family` are set.
  Type type = Type::U32;          // bin/un/fma/select/shuffle/reduce: operand type; cast/bitcast:
                                  // target; load/store: storage type; atomic: element type
  Type from = Type::U32;          // cast/bitcast: source type
  BinOp bin_op = BinOp::Add;
  UnOp un_op = UnOp::Neg;
  AtomicOp atomic_op = AtomicOp::Add;
  ReduceOp reduce_op = ReduceOp::Add;
  SubgroupKind subgroup = SubgroupKind::None;
  Builtin builtin = Builtin::InvocationId;
  NodeKind node = NodeKind::Let;  // node family; `grid_sync` is node Barrier with grid_sync_node
  bool grid_sync_node = false;
  bool workgroup_atomic = false;  // atomic.<op>.<type>.workgroup

  // "(u32, u32) -> u32"
  std::string signature() const;
};

// Every valid op id, in a fixed order (family, then operator, then type).
const std::vector<OpInfo>& op_catalog();
const OpInfo* find_op(std::string_view id);

// SHA-256 (lower-case hex) of the catalog's ids, signatures and tolerances, for certificates: the
// hash of one line "<id>|<signature>|<max_ulp>\n" per op, in catalog order (max_ulp 0 = exact),
// e.g. "un.sin.f32|(f32) -> f32|4\n".
const std::string& catalog_hash();

// Whether the operator is defined on operands of value type `t` (the catalog has its id).
bool bin_op_defined(BinOp op, Type t);
bool un_op_defined(UnOp op, Type t);
bool atomic_defined(AtomicOp op, Type element, bool workgroup);
bool reduce_defined(ReduceOp op, Type t);
bool shuffle_defined(Type t);
bool cast_defined(Type from, Type to);
bool bitcast_defined(Type from, Type to);

// Result type of a binary / unary operator applied to operands of type `t`.
Type bin_result_type(BinOp op, Type t);
Type un_result_type(UnOp op, Type t);

// The op ids a valid program uses, sorted and unique. `dispatch.fixpoint` depends on the dispatch
// config, not the program, so it is added only by `ops_used(program, config)` when iterations > 1.
std::vector<std::string> ops_used(const Program& program);
std::vector<std::string> ops_used(const Program& program, const DispatchConfig& config);

}  // namespace vyre
