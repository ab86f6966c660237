// Stable lower-case names of every IR enum (used in op ids, JSON, messages) and their parsers.
#include <array>
#include <optional>
#include <string_view>

#include "vyre/ir.hpp"
#include "vyre/ops.hpp"
#include "vyre/types.hpp"

namespace vyre {

namespace {

constexpr std::array<std::string_view, kTypeCount> kTypeNames = {
    "bool", "u32", "i32", "u64", "i64", "f32", "f64", "u8", "u16", "i8", "i16", "f16", "bf16"};

constexpr std::array<std::string_view, kBinOpCount> kBinOpNames = {
    "add",     "sub",     "mul",     "div",      "mod", "shl", "shr",
    "rotl",    "rotr",    "min",     "max",      "abs_diff",   "sat_add",
    "sat_sub", "sat_mul", "mul_high", "and",     "or",  "xor", "eq",
    "ne",      "lt",      "le",      "gt",       "ge",  "logical_and", "logical_or"};

constexpr std::array<std::string_view, kUnOpCount> kUnOpNames = {
    "neg",   "not",   "logical_not", "abs",        "sign",         "popcount", "clz",
    "ctz",   "reverse_bits",  "floor",      "ceil",         "trunc",    "round",
    "sqrt",  "reciprocal",    "inverse_sqrt", "is_nan",     "is_inf",   "is_finite",
    "exp",   "exp2",  "log",         "log2",       "sin",          "cos",      "tan",
    "asin",  "acos",  "atan",        "sinh",       "cosh",         "tanh"};

constexpr std::array<std::string_view, kAtomicOpCount> kAtomicOpNames = {
    "add", "and", "or", "xor", "min", "max", "exchange", "compare_exchange"};

constexpr std::array<std::string_view, kReduceOpCount> kReduceOpNames = {
    "add", "mul", "min", "max", "and", "or", "xor"};

constexpr std::array<std::string_view, kAccessCount> kAccessNames = {
    "read", "uniform", "read_write", "output", "workgroup"};

constexpr std::array<std::string_view, 2> kBarrierNames = {"workgroup", "grid_sync"};

constexpr std::array<std::string_view, 7> kBuiltinNames = {
    "invocation_id", "local_id", "workgroup_id", "num_workgroups",
    "subgroup_lane", "subgroup_size", "buf_len"};

constexpr std::array<std::string_view, 14> kOpFamilyNames = {
    "bin",  "un",    "cast",   "bitcast",  "fma",     "select", "load",
    "store", "atomic", "subgroup", "builtin", "node", "mem",    "dispatch"};

constexpr std::array<std::string_view, kNodeKindCount> kNodeKindNames = {
    "let", "assign", "store", "if", "loop", "return", "block", "barrier"};

constexpr std::array<std::string_view, kExprKindCount> kExprKindNames = {
    "lit",    "var",     "load",          "buf_len",         "invocation_id",
    "local_id", "workgroup_id", "num_workgroups", "subgroup_lane", "subgroup_size",
    "bin",    "un",      "select",        "cast",            "bitcast",
    "fma",    "atomic",  "ballot",        "shuffle",         "reduce"};

// Name of enum value `value` in `names`; "?" for a value out of range (a decoder's problem).
template <typename Enum, std::size_t N>
std::string_view name_of(const std::array<std::string_view, N>& names, Enum value) {
  auto index = static_cast<std::size_t>(value);
  return index < N ? names[index] : std::string_view("?");
}

template <typename Enum, std::size_t N>
std::optional<Enum> parse_in(const std::array<std::string_view, N>& names, std::string_view name) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<Enum>(i);
  return std::nullopt;
}

}  // namespace

std::string_view type_name(Type t) { return name_of(kTypeNames, t); }
std::optional<Type> parse_type(std::string_view name) { return parse_in<Type>(kTypeNames, name); }

std::string_view bin_op_name(BinOp op) { return name_of(kBinOpNames, op); }
std::string_view un_op_name(UnOp op) { return name_of(kUnOpNames, op); }
std::string_view atomic_op_name(AtomicOp op) { return name_of(kAtomicOpNames, op); }
std::string_view reduce_op_name(ReduceOp op) { return name_of(kReduceOpNames, op); }
std::string_view access_name(Access a) { return name_of(kAccessNames, a); }
std::string_view barrier_name(BarrierKind b) { return name_of(kBarrierNames, b); }
std::string_view node_kind_name(NodeKind k) { return name_of(kNodeKindNames, k); }
std::string_view expr_kind_name(ExprKind k) { return name_of(kExprKindNames, k); }
std::string_view builtin_name(Builtin b) { return name_of(kBuiltinNames, b); }
std::string_view op_family_name(OpFamily f) { return name_of(kOpFamilyNames, f); }

std::optional<BinOp> parse_bin_op(std::string_view name) { return parse_in<BinOp>(kBinOpNames, name); }
std::optional<UnOp> parse_un_op(std::string_view name) { return parse_in<UnOp>(kUnOpNames, name); }
std::optional<AtomicOp> parse_atomic_op(std::string_view name) {
  return parse_in<AtomicOp>(kAtomicOpNames, name);
}
std::optional<ReduceOp> parse_reduce_op(std::string_view name) {
  return parse_in<ReduceOp>(kReduceOpNames, name);
}
std::optional<Access> parse_access(std::string_view name) {
  return parse_in<Access>(kAccessNames, name);
}
std::optional<BarrierKind> parse_barrier(std::string_view name) {
  return parse_in<BarrierKind>(kBarrierNames, name);
}
std::optional<NodeKind> parse_node_kind(std::string_view name) {
  return parse_in<NodeKind>(kNodeKindNames, name);
}
std::optional<Builtin> parse_builtin(std::string_view name) {
  return parse_in<Builtin>(kBuiltinNames, name);
}

}  // namespace vyre

// ---- the names of child expressions and bodies (JSON keys, validator paths) ------------------------

namespace vyre {

namespace {

std::string indexed(std::string_view base, std::size_t i) {
  std::string s(base);
  s += '[';
  s += std::to_string(i);
  s += ']';
  return s;
}

std::string_view operand_key(ExprKind kind, AtomicOp atomic_op, std::size_t i, std::size_t arity) {
  switch (kind) {
    case ExprKind::Load: return i == 0 && arity == 1 ? "index" : "";
    case ExprKind::Bin: return arity == 2 ? (i == 0 ? "a" : "b") : "";
    case ExprKind::Un: return arity == 1 ? "a" : "";
    case ExprKind::Select:
      if (arity != 3) return "";
      return i == 0 ? "select" : (i == 1 ? "a" : "b");
    case ExprKind::Cast:
    case ExprKind::Bitcast:
    case ExprKind::SubgroupReduce: return arity == 1 ? "value" : "";
    case ExprKind::Atomic: {
      std::size_t expected = atomic_op == AtomicOp::CompareExchange ? 3 : 2;
      if (arity != expected) return "";
      return i == 0 ? "index" : (i == 1 ? "value" : "expected");
    }
    case ExprKind::SubgroupBallot: return arity == 1 ? "ballot" : "";
    case ExprKind::SubgroupShuffle: return arity == 2 ? (i == 0 ? "shuffle" : "lane") : "";
    default: return "";
  }
}

}  // namespace

std::string expr_operand_name(const Expr& e, std::size_t i) {
  if (e.kind == ExprKind::Fma && e.args.size() == 3) return indexed("fma", i);
  std::string_view key = operand_key(e.kind, e.atomic_op, i, e.args.size());
  return key.empty() ? indexed("args", i) : std::string(key);
}

std::string node_expr_name(NodeKind kind, std::size_t i) {
  switch (kind) {
    case NodeKind::Let:
    case NodeKind::Assign:
      if (i == 0) return "value";
      break;
    case NodeKind::Store:
      if (i < 2) return i == 0 ? "index" : "value";
      break;
    case NodeKind::If:
      if (i == 0) return "if";
      break;
    case NodeKind::Loop:
      if (i < 2) return i == 0 ? "from" : "to";
      break;
    default: break;
  }
  return indexed("exprs", i);
}

std::string_view node_body_name(NodeKind kind, bool else_body) {
  switch (kind) {
    case NodeKind::If: return else_body ? "else" : "then";
    case NodeKind::Block: return "block";
    default: return "body";
  }
}

}  // namespace vyre
