// The vyre IR (SPEC §2): a Program is buffers + a workgroup size + an entry body run once per
// invocation. Expressions and nodes are plain value trees: copy them, compare them, build them
// with vyre/builder.hpp, check them with vyre/validate.hpp, move them across the ABI as wire
// bytes (vyre/wire.hpp) or keep them as JSON (vyre/json.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vyre/types.hpp"

namespace vyre {

// ---- operators ---------------------------------------------------------------------------------

enum class BinOp : std::uint8_t {
  Add, Sub, Mul, Div, Mod,
  Shl, Shr, Rotl, Rotr,
  Min, Max, AbsDiff,
  SatAdd, SatSub, SatMul, MulHigh,
  And, Or, Xor,
  Eq, Ne, Lt, Le, Gt, Ge,
  LogicalAnd, LogicalOr,
};
inline constexpr int kBinOpCount = 27;

enum class UnOp : std::uint8_t {
  Neg, Not, LogicalNot, Abs, Sign,
  Popcount, Clz, Ctz, ReverseBits,
  Floor, Ceil, Trunc, Round,
  Sqrt, Reciprocal, InverseSqrt,
  IsNan, IsInf, IsFinite,
  Exp, Exp2, Log, Log2,
  Sin, Cos, Tan, Asin, Acos, Atan,
  Sinh, Cosh, Tanh,
};
inline constexpr int kUnOpCount = 32;

enum class AtomicOp : std::uint8_t { Add, And, Or, Xor, Min, Max, Exchange, CompareExchange };
inline constexpr int kAtomicOpCount = 8;

enum class ReduceOp : std::uint8_t { Add, Mul, Min, Max, And, Or, Xor };
inline constexpr int kReduceOpCount = 7;

enum class Access : std::uint8_t { Read, Uniform, ReadWrite, Output, Workgroup };
inline constexpr int kAccessCount = 5;

enum class BarrierKind : std::uint8_t { Workgroup, GridSync };

std::string_view bin_op_name(BinOp op);
std::string_view un_op_name(UnOp op);
std::string_view atomic_op_name(AtomicOp op);
std::string_view reduce_op_name(ReduceOp op);
std::string_view access_name(Access a);
std::string_view barrier_name(BarrierKind b);
std::optional<BinOp> parse_bin_op(std::string_view name);
std::optional<UnOp> parse_un_op(std::string_view name);
std::optional<AtomicOp> parse_atomic_op(std::string_view name);
std::optional<ReduceOp> parse_reduce_op(std::string_view name);
std::optional<Access> parse_access(std::string_view name);
std::optional<BarrierKind> parse_barrier(std::string_view name);

// Comparisons and logical operators return bool; abs_diff returns the unsigned type of the
// operands' width; every other binary operator returns its operand type.
constexpr bool is_comparison(BinOp op) {
  return op == BinOp::Eq || op == BinOp::Ne || op == BinOp::Lt || op == BinOp::Le ||
         op == BinOp::Gt || op == BinOp::Ge;
}
constexpr bool is_shift(BinOp op) {
  return op == BinOp::Shl || op == BinOp::Shr || op == BinOp::Rotl || op == BinOp::Rotr;
}

// Buffers are host inputs, host outputs, both, or neither (SPEC §2 "Buffers").
constexpr bool is_host_input(Access a) {
  return a == Access::Read || a == Access::Uniform || a == Access::ReadWrite;
}
constexpr bool is_host_output(Access a) { return a == Access::ReadWrite || a == Access::Output; }
constexpr bool is_writable(Access a) {
  return a == Access::ReadWrite || a == Access::Output || a == Access::Workgroup;
}

// ---- expressions -------------------------------------------------------------------------------

enum class ExprKind : std::uint8_t {
  Lit,             // type, bits
  Var,             // name
  Load,            // name = buffer; args = [index]
  BufLen,          // name = buffer
  InvocationId,    // axis
  LocalId,         // axis
  WorkgroupId,     // axis
  NumWorkgroups,   // axis
  SubgroupLane,    //
  SubgroupSize,    //
  Bin,             // bin_op; args = [a, b]
  Un,              // un_op; args = [a]
  Select,          // args = [cond, a, b]
  Cast,            // type = target; args = [value]
  Bitcast,         // type = target; args = [value]
  Fma,             // args = [a, b, c]
  Atomic,          // atomic_op; name = buffer; args = [index, value] or [index, value, expected]
  SubgroupBallot,  // args = [cond]
  SubgroupShuffle, // args = [value, lane]
  SubgroupReduce,  // reduce_op; args = [value]
};
inline constexpr int kExprKindCount = 20;

// "lit", "var", "load", "buf_len", "invocation_id", ..., "ballot", "shuffle", "reduce" (for
// messages; the JSON form uses these as discriminating keys, see docs/JSON.md).
std::string_view expr_kind_name(ExprKind kind);

struct Expr {
  ExprKind kind = ExprKind::Lit;
  Type type = Type::U32;      // Lit: its type; Cast/Bitcast: the target type; else unused
  std::uint64_t bits = 0;     // Lit: the value's bits, zero-extended from the type's width
  std::uint32_t axis = 0;     // InvocationId/LocalId/WorkgroupId/NumWorkgroups: 0, 1 or 2
  BinOp bin_op = BinOp::Add;
  UnOp un_op = UnOp::Neg;
  AtomicOp atomic_op = AtomicOp::Add;
  ReduceOp reduce_op = ReduceOp::Add;
  std::string name;           // Var: variable; Load/BufLen/Atomic: buffer
  std::vector<Expr> args;

  friend bool operator==(const Expr&, const Expr&) = default;
};

// ---- nodes -------------------------------------------------------------------------------------

enum class NodeKind : std::uint8_t {
  Let,      // name; exprs = [value]
  Assign,   // name; exprs = [value]
  Store,    // name = buffer; exprs = [index, value]
  If,       // exprs = [cond]; body = then; else_body
  Loop,     // name = loop variable (u32); exprs = [from, to]; body
  Return,   //
  Block,    // body
  Barrier,  // barrier
};
inline constexpr int kNodeKindCount = 8;

// "let", "assign", "store", "if", "loop", "return", "block", "barrier" (the JSON keys).
std::string_view node_kind_name(NodeKind kind);
std::optional<NodeKind> parse_node_kind(std::string_view name);

struct Node {
  NodeKind kind = NodeKind::Block;
  std::string name;
  std::vector<Expr> exprs;
  std::vector<Node> body;
  std::vector<Node> else_body;
  BarrierKind barrier = BarrierKind::Workgroup;

  friend bool operator==(const Node&, const Node&) = default;
};

// ---- paths -------------------------------------------------------------------------------------
// The names that the JSON form gives to child expressions and bodies; validator and decoder paths
// use them too ("body[2].then[0].value.a"). Operand i of `e` is "a"/"b" (bin, un, select arms),
// "index", "value", "expected", "lane", "select" (a select's condition), "ballot", "shuffle",
// "fma[0]".."fma[2]"; for an arity the kind does not have, "args[i]".
std::string expr_operand_name(const Expr& e, std::size_t i);
// Expression i of a node: "value", "index", "if" (the condition), "from", "to"; else "exprs[i]".
std::string node_expr_name(NodeKind kind, std::size_t i);
// The bodies of a node: "then"/"else" (if), "body" (loop), "block" (block).
std::string_view node_body_name(NodeKind kind, bool else_body = false);

// ---- program -----------------------------------------------------------------------------------

struct ByteRange {
  std::uint64_t begin = 0;  // inclusive
  std::uint64_t end = 0;    // exclusive
  friend bool operator==(const ByteRange&, const ByteRange&) = default;
};

struct BufferDecl {
  std::string name;
  std::uint32_t binding = 0;
  Access access = Access::Read;
  Type element = Type::U32;              // a storage type
  std::uint32_t count = 0;               // 0 = runtime-sized (inputs only)
  std::optional<ByteRange> output_byte_range;  // outputs only: the bytes returned to the host

  friend bool operator==(const BufferDecl&, const BufferDecl&) = default;
};

struct Program {
  std::vector<BufferDecl> buffers;
  std::array<std::uint32_t, 3> workgroup_size{1, 1, 1};
  std::vector<Node> body;

  friend bool operator==(const Program&, const Program&) = default;

  const BufferDecl* find_buffer(std::string_view buffer_name) const;
  // Indices into `buffers` of the host inputs / host outputs, in declaration order (SPEC §2).
  std::vector<std::size_t> input_indices() const;
  std::vector<std::size_t> output_indices() const;
};

// Dispatch configuration (SPEC §3). Absent fields take the defaults SPEC describes.
struct DispatchConfig {
  std::optional<std::uint64_t> dispatch_elements;
  std::optional<std::array<std::uint32_t, 3>> grid;
  std::optional<std::array<std::uint32_t, 3>> workgroup_override;
  std::uint32_t fixpoint_iterations = 1;  // >= 1
  // ABI 1.1: the work must finish within this many ns of the call that starts it, else it stops
  // with VYRE_ERR_TIMEOUT (backends with VYRE_CAP_DEADLINE).
  std::optional<std::uint64_t> time_limit_ns;

  friend bool operator==(const DispatchConfig&, const DispatchConfig&) = default;
};

}  // namespace vyre
