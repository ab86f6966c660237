// The op catalog (SPEC §4, §5; docs/SEMANTICS.md "Operators"): which operator exists on which
// type, what it returns, how conform compares it, and the full list of op ids built from those
// rules. Every other part of the project asks these functions instead of keeping its own table.
#include "vyre/ops.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "vyre/fingerprint.hpp"

namespace vyre {

namespace {

constexpr Type kIntTypes[] = {Type::U32, Type::I32, Type::U64, Type::I64};
constexpr Type kFloatTypes[] = {Type::F32, Type::F64};
constexpr Type kShuffleTypes[] = {Type::U32, Type::I32, Type::U64, Type::I64, Type::F32, Type::F64};

constexpr BinOp kFloatBinOps[] = {BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div,
                                  BinOp::Min, BinOp::Max, BinOp::Eq,  BinOp::Ne,
                                  BinOp::Lt,  BinOp::Le,  BinOp::Gt,  BinOp::Ge};
constexpr BinOp kBoolBinOps[] = {BinOp::And, BinOp::Or,         BinOp::Xor,       BinOp::Eq,
                                 BinOp::Ne,  BinOp::LogicalAnd, BinOp::LogicalOr};
constexpr UnOp kIntUnOps[] = {UnOp::Neg,      UnOp::Not, UnOp::LogicalNot,
                              UnOp::Abs,      UnOp::Sign, UnOp::Popcount,
                              UnOp::Clz,      UnOp::Ctz,  UnOp::ReverseBits};
constexpr UnOp kBoolUnOps[] = {UnOp::Not, UnOp::LogicalNot};
constexpr AtomicOp kU64AtomicOps[] = {AtomicOp::Add, AtomicOp::Exchange, AtomicOp::CompareExchange};
constexpr ReduceOp kFloatReduceOps[] = {ReduceOp::Add, ReduceOp::Mul, ReduceOp::Min, ReduceOp::Max};

template <typename T, std::size_t N>
constexpr bool contains(const T (&list)[N], T value) {
  return std::find(std::begin(list), std::end(list), value) != std::end(list);
}

constexpr bool is_int_value(Type t) { return contains(kIntTypes, t); }
constexpr bool is_float_value(Type t) { return contains(kFloatTypes, t); }

// Float unary ops other than the transcendentals: neg, abs, sign, rounding, sqrt, reciprocal,
// inverse_sqrt and the classification predicates.
constexpr bool is_float_basic_un_op(UnOp op) {
  switch (op) {
    case UnOp::Neg: case UnOp::Abs: case UnOp::Sign: case UnOp::Floor: case UnOp::Ceil:
    case UnOp::Trunc: case UnOp::Round: case UnOp::Sqrt: case UnOp::Reciprocal:
    case UnOp::InverseSqrt: case UnOp::IsNan: case UnOp::IsInf: case UnOp::IsFinite:
      return true;
    default: return false;
  }
}

constexpr bool is_transcendental(UnOp op) {
  return static_cast<int>(op) >= static_cast<int>(UnOp::Exp) &&
         static_cast<int>(op) < kUnOpCount;
}

// SPEC §5's ULP table; every other op is bit-exact.
constexpr std::uint32_t un_op_ulp(UnOp op) {
  switch (op) {
    case UnOp::Exp: case UnOp::Exp2: case UnOp::Log: case UnOp::Log2: case UnOp::InverseSqrt:
      return 2;
    case UnOp::Sin: case UnOp::Cos: case UnOp::Asin: case UnOp::Acos: case UnOp::Sinh:
    case UnOp::Cosh: case UnOp::Tanh:
      return 4;
    case UnOp::Tan: case UnOp::Atan: return 5;
    default: return 0;
  }
}

// ---- building the catalog ----------------------------------------------------------------------

std::string join(std::initializer_list<std::string_view> parts) {
  std::string id;
  for (auto part : parts) {
    if (!id.empty()) id += '.';
    id += part;
  }
  return id;
}

OpInfo make_op(std::string id, OpFamily family, std::vector<Type> operands,
               std::optional<Type> result) {
  OpInfo info;
  info.id = std::move(id);
  info.family = family;
  info.operands = std::move(operands);
  info.result = result;
  return info;
}

void add_bin_ops(std::vector<OpInfo>& out) {
  for (int o = 0; o < kBinOpCount; ++o) {
    auto op = static_cast<BinOp>(o);
    for (Type t : kValueTypes) {
      if (!bin_op_defined(op, t)) continue;
      Type rhs = is_shift(op) ? Type::U32 : t;
      OpInfo info = make_op(join({"bin", bin_op_name(op), type_name(t)}), OpFamily::Bin, {t, rhs},
                            bin_result_type(op, t));
      info.type = t;
      info.bin_op = op;
      out.push_back(std::move(info));
    }
  }
}

void add_un_ops(std::vector<OpInfo>& out) {
  for (int o = 0; o < kUnOpCount; ++o) {
    auto op = static_cast<UnOp>(o);
    for (Type t : kValueTypes) {
      if (!un_op_defined(op, t)) continue;
      OpInfo info = make_op(join({"un", un_op_name(op), type_name(t)}), OpFamily::Un, {t},
                            un_result_type(op, t));
      info.type = t;
      info.un_op = op;
      info.tolerance.max_ulp = un_op_ulp(op);
      out.push_back(std::move(info));
    }
  }
}

void add_conversions(std::vector<OpInfo>& out, OpFamily family, bool (*defined)(Type, Type)) {
  std::string_view prefix = family == OpFamily::Cast ? "cast" : "bitcast";
  for (Type from : kValueTypes) {
    for (Type to : kValueTypes) {
      if (!defined(from, to)) continue;
      OpInfo info = make_op(join({prefix, type_name(from), type_name(to)}), family, {from}, to);
      info.from = from;
      info.type = to;
      out.push_back(std::move(info));
    }
  }
}

void add_fma_and_select(std::vector<OpInfo>& out) {
  for (Type t : kFloatTypes) {
    OpInfo info = make_op(join({"fma", type_name(t)}), OpFamily::Fma, {t, t, t}, t);
    info.type = t;
    out.push_back(std::move(info));
  }
  for (Type t : kValueTypes) {
    OpInfo info = make_op(join({"select", type_name(t)}), OpFamily::Select, {Type::Bool, t, t}, t);
    info.type = t;
    out.push_back(std::move(info));
  }
}

void add_memory_ops(std::vector<OpInfo>& out) {
  for (Type s : kStorageTypes) {
    OpInfo info = make_op(join({"load", type_name(s)}), OpFamily::Load, {Type::U32}, widen(s));
    info.type = s;
    out.push_back(std::move(info));
  }
  for (Type s : kStorageTypes) {
    OpInfo info =
        make_op(join({"store", type_name(s)}), OpFamily::Store, {Type::U32, widen(s)}, std::nullopt);
    info.type = s;
    out.push_back(std::move(info));
  }
}

void add_atomics(std::vector<OpInfo>& out) {
  for (int o = 0; o < kAtomicOpCount; ++o) {
    auto op = static_cast<AtomicOp>(o);
    for (Type t : kIntTypes) {
      for (bool workgroup : {false, true}) {
        if (!atomic_defined(op, t, workgroup)) continue;
        std::string id = join({"atomic", atomic_op_name(op), type_name(t)});
        if (workgroup) id += ".workgroup";
        std::vector<Type> operands = {Type::U32, t};
        if (op == AtomicOp::CompareExchange) operands.push_back(t);
        OpInfo info = make_op(std::move(id), OpFamily::Atomic, std::move(operands), t);
        info.type = t;
        info.atomic_op = op;
        info.workgroup_atomic = workgroup;
        out.push_back(std::move(info));
      }
    }
  }
}

void add_subgroup_ops(std::vector<OpInfo>& out) {
  OpInfo ballot = make_op("subgroup.ballot", OpFamily::Subgroup, {Type::Bool}, Type::U32);
  ballot.type = Type::Bool;
  ballot.subgroup = SubgroupKind::Ballot;
  out.push_back(std::move(ballot));
  for (Type t : kShuffleTypes) {
    OpInfo info = make_op(join({"subgroup", "shuffle", type_name(t)}), OpFamily::Subgroup,
                          {t, Type::U32}, t);
    info.type = t;
    info.subgroup = SubgroupKind::Shuffle;
    out.push_back(std::move(info));
  }
  for (int o = 0; o < kReduceOpCount; ++o) {
    auto op = static_cast<ReduceOp>(o);
    for (Type t : kShuffleTypes) {
      if (!reduce_defined(op, t)) continue;
      OpInfo info = make_op(join({"subgroup", "reduce", reduce_op_name(op), type_name(t)}),
                            OpFamily::Subgroup, {t}, t);
      info.type = t;
      info.reduce_op = op;
      info.subgroup = SubgroupKind::Reduce;
      out.push_back(std::move(info));
    }
  }
}

void add_builtins(std::vector<OpInfo>& out) {
  for (int b = 0; b <= static_cast<int>(Builtin::BufLen); ++b) {
    auto builtin = static_cast<Builtin>(b);
    OpInfo info = make_op(join({"builtin", builtin_name(builtin)}), OpFamily::Builtin, {}, Type::U32);
    info.builtin = builtin;
    out.push_back(std::move(info));
  }
}

void add_node_ops(std::vector<OpInfo>& out) {
  struct NodeOp {
    std::string_view name;
    NodeKind kind;
    std::vector<Type> operands;
    bool grid_sync;
  };
  const NodeOp nodes[] = {
      {"let", NodeKind::Let, {}, false},
      {"assign", NodeKind::Assign, {}, false},
      {"if", NodeKind::If, {Type::Bool}, false},
      {"loop", NodeKind::Loop, {Type::U32, Type::U32}, false},
      {"return", NodeKind::Return, {}, false},
      {"block", NodeKind::Block, {}, false},
      {"barrier", NodeKind::Barrier, {}, false},
      {"grid_sync", NodeKind::Barrier, {}, true},
  };
  for (const auto& n : nodes) {
    OpInfo info = make_op(join({"node", n.name}), OpFamily::NodeOp, n.operands, std::nullopt);
    info.node = n.kind;
    info.grid_sync_node = n.grid_sync;
    out.push_back(std::move(info));
  }
}

std::vector<OpInfo> build_catalog() {
  std::vector<OpInfo> ops;
  add_bin_ops(ops);
  add_un_ops(ops);
  add_conversions(ops, OpFamily::Cast, cast_defined);
  add_conversions(ops, OpFamily::Bitcast, bitcast_defined);
  add_fma_and_select(ops);
  add_memory_ops(ops);
  add_atomics(ops);
  add_subgroup_ops(ops);
  add_builtins(ops);
  add_node_ops(ops);
  ops.push_back(make_op("mem.workgroup", OpFamily::Mem, {}, std::nullopt));
  ops.push_back(make_op("dispatch.fixpoint", OpFamily::Dispatch, {}, std::nullopt));
  return ops;
}

std::string compute_catalog_hash() {
  Sha256Builder hash;
  for (const auto& op : op_catalog()) {
    hash.add(op.id).add("|").add(op.signature()).add("|");
    hash.add(std::to_string(op.tolerance.max_ulp)).add("\n");
  }
  return to_hex(hash.finish());
}

}  // namespace

// ---- which operator exists on which type ----------------------------------------------------------

bool bin_op_defined(BinOp op, Type t) {
  if (static_cast<int>(op) >= kBinOpCount) return false;
  if (is_int_value(t)) return true;
  if (is_float_value(t)) return contains(kFloatBinOps, op);
  if (t == Type::Bool) return contains(kBoolBinOps, op);
  return false;
}

bool un_op_defined(UnOp op, Type t) {
  if (static_cast<int>(op) >= kUnOpCount) return false;
  if (is_int_value(t)) return contains(kIntUnOps, op);
  if (is_float_value(t)) return is_float_basic_un_op(op) || is_transcendental(op);
  if (t == Type::Bool) return contains(kBoolUnOps, op);
  return false;
}

bool atomic_defined(AtomicOp op, Type element, bool /*workgroup: both scopes have the same ops*/) {
  if (static_cast<int>(op) >= kAtomicOpCount) return false;
  if (element == Type::U32 || element == Type::I32) return true;
  if (element == Type::U64) return contains(kU64AtomicOps, op);
  return false;
}

bool reduce_defined(ReduceOp op, Type t) {
  if (static_cast<int>(op) >= kReduceOpCount) return false;
  if (is_int_value(t)) return true;
  if (is_float_value(t)) return contains(kFloatReduceOps, op);
  return false;
}

bool shuffle_defined(Type t) { return contains(kShuffleTypes, t); }

bool cast_defined(Type from, Type to) {
  return is_value_type(from) && is_value_type(to) && from != to;
}

bool bitcast_defined(Type from, Type to) {
  if (from == Type::Bool || to == Type::Bool) return false;
  return cast_defined(from, to) && byte_size(from) == byte_size(to);
}

Type bin_result_type(BinOp op, Type t) {
  if (is_comparison(op) || op == BinOp::LogicalAnd || op == BinOp::LogicalOr) return Type::Bool;
  if (op == BinOp::AbsDiff) return unsigned_of(t);
  return t;
}

Type un_result_type(UnOp op, Type t) {
  switch (op) {
    case UnOp::Popcount: case UnOp::Clz: case UnOp::Ctz: return Type::U32;
    case UnOp::LogicalNot: case UnOp::IsNan: case UnOp::IsInf: case UnOp::IsFinite:
      return Type::Bool;
    default: return t;
  }
}

// ---- the catalog ---------------------------------------------------------------------------------

std::string OpInfo::signature() const {
  std::string text = "(";
  for (std::size_t i = 0; i < operands.size(); ++i) {
    if (i > 0) text += ", ";
    text += type_name(operands[i]);
  }
  text += ')';
  if (result) {
    text += " -> ";
    text += type_name(*result);
  }
  return text;
}

const std::vector<OpInfo>& op_catalog() {
  static const std::vector<OpInfo> catalog = build_catalog();
  return catalog;
}

const OpInfo* find_op(std::string_view id) {
  static const auto index = [] {
    std::unordered_map<std::string_view, const OpInfo*> map;
    for (const auto& op : op_catalog()) map.emplace(op.id, &op);
    return map;
  }();
  auto it = index.find(id);
  return it == index.end() ? nullptr : it->second;
}

const std::string& catalog_hash() {
  static const std::string hash = compute_catalog_hash();
  return hash;
}

}  // namespace vyre
