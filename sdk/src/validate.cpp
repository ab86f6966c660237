// The validator (SPEC §2, docs/SEMANTICS.md): walks the whole program once, reporting every
// problem with its stable Check code, its path and a fix. An operand whose type is unknown (its
// own problem was reported) does not cause further reports up the tree.
#include "vyre/validate.hpp"

#include <fmt/format.h>

#include <set>
#include <string>

#include "vyre/buffer_index.hpp"
#include "vyre/error.hpp"
#include "vyre/geometry.hpp"
#include "vyre/ops.hpp"
#include "vyre/scoped_names.hpp"
#include "vyre/wire.hpp"

namespace vyre {

namespace {

using MaybeType = std::optional<Type>;

bool is_identifier(std::string_view name) {
  auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (name.empty() || !alpha(name[0])) return false;
  for (char c : name)
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

bool is_index_type(Type t) { return t == Type::U32 || t == Type::I32; }

std::string show(Type t) {
  return is_valid_type(t) ? std::string(type_name(t)) : fmt::format("<type {}>", static_cast<int>(t));
}

std::string child(const std::string& path, std::string_view name) { return fmt::format("{}.{}", path, name); }

struct Variable {
  MaybeType type;  // nullopt when its value was ill-typed (already reported)
  bool loop;       // loop variables are read-only
};

class Validator {
 public:
  explicit Validator(const Program& program) : program_(program), buffers_(program) {}

  std::vector<Diagnostic> run() {
    check_workgroup();
    check_buffers();
    check_subgroups();
    body(program_.body, "body", 1, true);
    return std::move(diagnostics_);
  }

 private:
  void report(Check code, const std::string& path, std::string_view problem, std::string_view fix) {
    diagnostics_.push_back({code, path, Error::make(VYRE_ERR_INVALID_PROGRAM, problem, fix).what()});
  }

  // ---- program level ----
  void check_workgroup() {
    const auto& wg = program_.workgroup_size;
    std::uint64_t product = std::uint64_t{wg[0]} * wg[1] * wg[2];
    if (wg[0] == 0 || wg[1] == 0 || wg[2] == 0 || product > 1024)
      report(Check::WorkgroupSize, "workgroup_size",
             fmt::format("workgroup_size [{}, {}, {}] has a zero axis or more than 1024 invocations",
                         wg[0], wg[1], wg[2]),
             "give every axis at least 1 and keep x*y*z at most 1024");
  }

  void check_buffers() {
    std::set<std::string> names;
    std::set<std::uint32_t> bindings;
    for (std::size_t i = 0; i < program_.buffers.size(); ++i) {
      const BufferDecl& d = program_.buffers[i];
      std::string path = fmt::format("buffers[{}]", i);
      if (!is_identifier(d.name))
        report(Check::InvalidName, path, fmt::format("buffer name \"{}\" is not an identifier", d.name),
               "use a name matching [A-Za-z_][A-Za-z0-9_]*");
      if (!names.insert(d.name).second)
        report(Check::DuplicateBufferName, path, fmt::format("buffer name \"{}\" is declared twice", d.name),
               "give every buffer its own name");
      if (!bindings.insert(d.binding).second)
        report(Check::DuplicateBinding, path,
               fmt::format("buffer \"{}\" reuses binding {}", d.name, d.binding),
               "give every buffer its own binding");
      check_buffer_shape(d, path);
    }
  }

  void check_buffer_shape(const BufferDecl& d, const std::string& path) {
    if (!is_valid_type(d.element) || static_cast<int>(d.access) >= kAccessCount) {
      report(Check::InvalidType, path,
             fmt::format("buffer \"{}\" has an out-of-range element type or access", d.name),
             "use one of the storage types and accesses of SPEC §2");
      return;
    }
    bool needs_count = d.access == Access::Output || d.access == Access::Workgroup;
    if (needs_count && d.count == 0)
      report(Check::BufferCount, path,
             fmt::format("{} buffer \"{}\" has count 0", access_name(d.access), d.name),
             "give output and workgroup buffers their element count (> 0)");
    if (d.output_byte_range) check_output_range(d, path);
  }

  void check_output_range(const BufferDecl& d, const std::string& path) {
    const ByteRange& r = *d.output_byte_range;
    if (!is_host_output(d.access)) {
      report(Check::OutputRange, path,
             fmt::format("{} buffer \"{}\" has an output_byte_range but is not a host output",
                         access_name(d.access), d.name),
             "remove output_byte_range, or make the buffer read_write or output");
      return;
    }
    if (r.begin >= r.end) {
      report(Check::OutputRange, path,
             fmt::format("output_byte_range [{}, {}) of buffer \"{}\" is empty", r.begin, r.end, d.name),
             "use begin < end, or remove output_byte_range");
      return;
    }
    std::uint64_t bytes = std::uint64_t{d.count} * byte_size(d.element);
    if (d.count > 0 && r.end > bytes)
      report(Check::OutputRange, path,
             fmt::format("output_byte_range [{}, {}) of buffer \"{}\" ends past its {} bytes", r.begin,
                         r.end, d.name, bytes),
             "keep the range within count * element size");
  }

  void check_subgroups() {
    const auto& wg = program_.workgroup_size;
    std::uint64_t product = std::uint64_t{wg[0]} * wg[1] * wg[2];
    if (product % 32 == 0 || !uses_subgroup_ops(program_)) return;
    report(Check::SubgroupWorkgroup, "workgroup_size",
           fmt::format("the program uses subgroup ops but workgroup_size [{}, {}, {}] has {} "
                       "invocations, not a multiple of 32",
                       wg[0], wg[1], wg[2], product),
           "use a workgroup whose x*y*z is a multiple of 32 (subgroups are 32 lanes)");
  }

  // ---- scope ----
  const Variable* lookup(std::string_view name) const { return vars_.find(name); }

  void unknown_variable(const std::string& name, const std::string& path) {
    if (crossed_.count(name) != 0) {
      report(Check::CrossesGridSync, path,
             fmt::format("variable \"{}\" was bound before a grid_sync and is used after it", name),
             "recompute the value after the grid_sync, or pass it through a buffer");
      return;
    }
    report(Check::UnknownVariable, path, fmt::format("variable \"{}\" is not in scope", name),
           "declare it with a let (or loop) that encloses this use");
  }

  void declare(const std::string& name, MaybeType type, bool loop, const std::string& path) {
    if (!is_identifier(name))
      report(Check::InvalidName, path, fmt::format("variable name \"{}\" is not an identifier", name),
             "use a name matching [A-Za-z_][A-Za-z0-9_]*");
    if (lookup(name) != nullptr)
      report(Check::DuplicateVariable, path, fmt::format("variable \"{}\" is already in scope", name),
             "choose a new name (names may be reused only in sibling scopes)");
    vars_.declare(name, Variable{type, loop});
  }

  // ---- statements ----
  bool check_depth(std::uint32_t depth, const std::string& path) {
    if (depth <= kWireMaxDepth) return true;
    report(Check::NestingDepth, path, fmt::format("the program nests deeper than {} levels", kWireMaxDepth),
           "flatten deeply nested expressions into let statements");
    return false;
  }

  void body(const std::vector<Node>& nodes, const std::string& path, std::uint32_t depth, bool top_level) {
    vars_.open();
    for (std::size_t i = 0; i < nodes.size(); ++i)
      node(nodes[i], fmt::format("{}[{}]", path, i), depth, top_level);
    vars_.close();
  }

  // Node kinds' shapes: how many expressions, and which bodies they may have.
  struct Shape {
    std::size_t exprs;
    bool body;
    bool else_body;
  };
  static Shape shape(NodeKind kind) {
    switch (kind) {
      case NodeKind::Let:
      case NodeKind::Assign: return {1, false, false};
      case NodeKind::Store: return {2, false, false};
      case NodeKind::If: return {1, true, true};
      case NodeKind::Loop: return {2, true, false};
      case NodeKind::Block: return {0, true, false};
      default: return {0, false, false};
    }
  }

  bool check_shape(const Node& n, const std::string& path) {
    Shape s = shape(n.kind);
    std::string_view kind = node_kind_name(n.kind);
    if (n.exprs.size() != s.exprs) {
      report(Check::ArityMismatch, path,
             fmt::format("a {} statement has {} expressions, not {}", kind, n.exprs.size(), s.exprs),
             "build the statement with the vyre::dsl helpers or the JSON form");
      return false;
    }
    if ((!s.body && !n.body.empty()) || (!s.else_body && !n.else_body.empty()))
      report(Check::ArityMismatch, path, fmt::format("a {} statement has nested statements", kind),
             "only if, loop and block have bodies (and only if has an else)");
    return true;
  }

  MaybeType node_expr(const Node& n, std::size_t i, const std::string& path, std::uint32_t depth) {
    return expr(n.exprs[i], child(path, node_expr_name(n.kind, i)), depth + 1);
  }

  void node(const Node& n, const std::string& path, std::uint32_t depth, bool top_level) {
    if (!check_depth(depth, path)) return;
    if (static_cast<int>(n.kind) >= kNodeKindCount) {
      report(Check::InvalidType, path, fmt::format("node kind {} is out of range", static_cast<int>(n.kind)),
             "use one of the node kinds of SPEC §2");
      return;
    }
    if (!check_shape(n, path)) return;
    switch (n.kind) {
      case NodeKind::Let: {
        MaybeType t = node_expr(n, 0, path, depth);
        declare(n.name, t, false, path);
        return;
      }
      case NodeKind::Assign: assign(n, path, depth); return;
      case NodeKind::Store: store(n, path, depth); return;
      case NodeKind::If:
        expect(node_expr(n, 0, path, depth), Type::Bool, child(path, "if"), "an if condition");
        body(n.body, child(path, "then"), depth + 1, false);
        body(n.else_body, child(path, "else"), depth + 1, false);
        return;
      case NodeKind::Loop: loop(n, path, depth); return;
      case NodeKind::Return: return;
      case NodeKind::Block: body(n.body, child(path, "block"), depth + 1, false); return;
      case NodeKind::Barrier: barrier(n, path, top_level); return;
    }
  }

  void assign(const Node& n, const std::string& path, std::uint32_t depth) {
    MaybeType value = node_expr(n, 0, path, depth);
    const Variable* target = lookup(n.name);
    if (target == nullptr) {
      unknown_variable(n.name, path);
      return;
    }
    if (target->loop) {
      report(Check::AssignLoopVariable, path, fmt::format("assignment to loop variable \"{}\"", n.name),
             "loop variables are read-only; copy it into a let variable and assign that");
      return;
    }
    if (value && target->type && *value != *target->type)
      report(Check::TypeMismatch, child(path, "value"),
             fmt::format("assigning a {} to variable \"{}\" of type {}", show(*value), n.name,
                         show(*target->type)),
             fmt::format("assign a {} (cast the value if needed)", show(*target->type)));
  }

  void store(const Node& n, const std::string& path, std::uint32_t depth) {
    MaybeType index = node_expr(n, 0, path, depth);
    MaybeType value = node_expr(n, 1, path, depth);
    const BufferDecl* buffer = find_buffer(n.name, path);
    check_index(index, child(path, "index"));
    if (buffer == nullptr) return;
    if (!is_writable(buffer->access))
      report(Check::NotWritable, path,
             fmt::format("store to {} buffer \"{}\"", access_name(buffer->access), buffer->name),
             "declare the buffer read_write, output or workgroup");
    Type element = widen(buffer->element);
    if (value && *value != element)
      report(Check::TypeMismatch, child(path, "value"),
             fmt::format("storing a {} into buffer \"{}\" of {} (which holds {} values)", show(*value),
                         buffer->name, show(buffer->element), show(element)),
             fmt::format("store a {} (cast the value if needed)", show(element)));
  }

  void loop(const Node& n, const std::string& path, std::uint32_t depth) {
    expect(node_expr(n, 0, path, depth), Type::U32, child(path, "from"), "a loop bound");
    expect(node_expr(n, 1, path, depth), Type::U32, child(path, "to"), "a loop bound");
    vars_.open();
    declare(n.name, Type::U32, true, path);
    body(n.body, child(path, "body"), depth + 1, false);
    vars_.close();
  }

  void barrier(const Node& n, const std::string& path, bool top_level) {
    if (static_cast<int>(n.barrier) > static_cast<int>(BarrierKind::GridSync)) {
      report(Check::InvalidType, path, "the barrier kind is out of range", "use workgroup or grid_sync");
      return;
    }
    if (n.barrier != BarrierKind::GridSync) return;
    if (!top_level) {
      report(Check::GridSyncPlacement, path, "grid_sync is nested inside another statement",
             "put grid_sync only in the top-level body, outside every if, loop and block");
      return;
    }
    vars_.clear([this](const std::string& name, const Variable&) { crossed_.insert(name); });
  }

  // ---- helpers for expressions ----
  const BufferDecl* find_buffer(const std::string& name, const std::string& path) {
    const BufferDecl* buffer = buffers_.find(name);
    if (buffer == nullptr)
      report(Check::UnknownBuffer, path, fmt::format("buffer \"{}\" is not declared", name),
             "declare it in the program's buffers or correct the name");
    return buffer;
  }

  void expect(MaybeType actual, Type wanted, const std::string& path, std::string_view what) {
    if (!actual || *actual == wanted) return;
    report(Check::TypeMismatch, path, fmt::format("{} is a {}, not a {}", what, show(*actual), show(wanted)),
           fmt::format("make it a {} (compare or cast it)", show(wanted)));
  }

  void check_index(MaybeType index, const std::string& path) {
    if (!index || is_index_type(*index)) return;
    report(Check::TypeMismatch, path, fmt::format("an index is a {}, not a u32 or i32", show(*index)),
           "cast the index to u32");
  }

  bool check_arity(const Expr& e, std::size_t wanted, const std::string& path) {
    if (e.args.size() == wanted) return true;
    report(Check::ArityMismatch, path,
           fmt::format("a {} expression has {} operands, not {}", expr_kind_name(e.kind), e.args.size(), wanted),
           "build the expression with the vyre::dsl helpers or the JSON form");
    return false;
  }

  void not_defined(const std::string& path, std::string_view what, std::string_view fix) {
    report(Check::OpNotDefined, path, what, fix);
  }

  // ---- expressions ----
  MaybeType expr(const Expr& e, const std::string& path, std::uint32_t depth) {
    if (!check_depth(depth, path)) return std::nullopt;
    if (static_cast<int>(e.kind) >= kExprKindCount) {
      report(Check::InvalidType, path, fmt::format("expression kind {} is out of range", static_cast<int>(e.kind)),
             "use one of the expression kinds of SPEC §2");
      return std::nullopt;
    }
    std::size_t arity = expected_arity(e);
    if (!check_arity(e, arity, path)) return std::nullopt;
    std::vector<MaybeType> args;
    for (std::size_t i = 0; i < e.args.size(); ++i)
      args.push_back(expr(e.args[i], child(path, expr_operand_name(e, i)), depth + 1));
    return typed(e, args, path);
  }

  static std::size_t expected_arity(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Load:
      case ExprKind::Un:
      case ExprKind::Cast:
      case ExprKind::Bitcast:
      case ExprKind::SubgroupBallot:
      case ExprKind::SubgroupReduce: return 1;
      case ExprKind::Bin:
      case ExprKind::SubgroupShuffle: return 2;
      case ExprKind::Select:
      case ExprKind::Fma: return 3;
      case ExprKind::Atomic: return e.atomic_op == AtomicOp::CompareExchange ? 3 : 2;
      default: return 0;
    }
  }

  std::string operand_path(const Expr& e, std::size_t i, const std::string& path) {
    return child(path, expr_operand_name(e, i));
  }

  MaybeType typed(const Expr& e, const std::vector<MaybeType>& args, const std::string& path) {
    switch (e.kind) {
      case ExprKind::Lit: return literal(e, path);
      case ExprKind::Var: {
        const Variable* v = lookup(e.name);
        if (v == nullptr) unknown_variable(e.name, path);
        return v == nullptr ? std::nullopt : v->type;
      }
      case ExprKind::Load: {
        const BufferDecl* buffer = find_buffer(e.name, path);
        check_index(args[0], operand_path(e, 0, path));
        if (buffer == nullptr || !is_valid_type(buffer->element)) return std::nullopt;
        return widen(buffer->element);
      }
      case ExprKind::BufLen: return buf_len(e, path);
      case ExprKind::InvocationId:
      case ExprKind::LocalId:
      case ExprKind::WorkgroupId:
      case ExprKind::NumWorkgroups:
        if (e.axis > 2)
          report(Check::InvalidAxis, path, fmt::format("{} axis {} is not 0, 1 or 2", expr_kind_name(e.kind), e.axis),
                 "use axis 0 (x), 1 (y) or 2 (z)");
        return Type::U32;
      case ExprKind::SubgroupLane:
      case ExprKind::SubgroupSize: return Type::U32;
      case ExprKind::Bin: return bin(e, args, path);
      case ExprKind::Un: return un(e, args, path);
      case ExprKind::Select: return select(e, args, path);
      case ExprKind::Cast:
      case ExprKind::Bitcast: return conversion(e, args, path);
      case ExprKind::Fma: return fma(args, path);
      case ExprKind::Atomic: return atomic(e, args, path);
      case ExprKind::SubgroupBallot:
        expect(args[0], Type::Bool, operand_path(e, 0, path), "a ballot condition");
        return Type::U32;
      case ExprKind::SubgroupShuffle: return shuffle(e, args, path);
      case ExprKind::SubgroupReduce: return reduce(e, args, path);
    }
    return std::nullopt;
  }

  MaybeType literal(const Expr& e, const std::string& path) {
    if (!is_valid_type(e.type)) {
      report(Check::InvalidType, path, "a literal's type is out of range", "use a value type");
      return std::nullopt;
    }
    if (!is_value_type(e.type)) {
      report(Check::InvalidLiteral, path, fmt::format("a literal has storage-only type {}", show(e.type)),
             fmt::format("use a {} literal (what a {} load yields)", show(widen(e.type)), show(e.type)));
      return std::nullopt;
    }
    std::uint32_t width = bit_width(e.type);
    if (width < 64 && (e.bits >> width) != 0)
      report(Check::InvalidLiteral, path,
             fmt::format("{} literal bits 0x{:x} do not fit in {} bit{}", show(e.type), e.bits, width,
                         width == 1 ? "" : "s"),
             e.type == Type::Bool ? "use 0 (false) or 1 (true)"
                                  : "store the value zero-extended from the type's width");
    return e.type;
  }

  MaybeType buf_len(const Expr& e, const std::string& path) {
    const BufferDecl* buffer = find_buffer(e.name, path);
    if (buffer != nullptr && buffer->access == Access::Workgroup)
      report(Check::WorkgroupBufferAccess, path,
             fmt::format("buf_len of workgroup buffer \"{}\"", e.name),
             "use the buffer's declared count as a u32 literal");
    return Type::U32;
  }

  MaybeType bin(const Expr& e, const std::vector<MaybeType>& args, const std::string& path) {
    if (static_cast<int>(e.bin_op) >= kBinOpCount) {
      report(Check::InvalidType, path, "the binary operator is out of range", "use an operator of SPEC §2");
      return std::nullopt;
    }
    MaybeType a = args[0];
    MaybeType b = args[1];
    std::string_view op = bin_op_name(e.bin_op);
    if (!a) return std::nullopt;
    if (is_shift(e.bin_op)) {
      expect(b, Type::U32, operand_path(e, 1, path), fmt::format("the amount of {}", op));
    } else if (b && *a != *b) {
      report(Check::TypeMismatch, path, fmt::format("{} of a {} and a {}", op, show(*a), show(*b)),
             "give both operands the same type (cast one of them)");
      return std::nullopt;
    }
    if (!bin_op_defined(e.bin_op, *a)) {
      not_defined(path, fmt::format("bin.{}.{} is not an operator", op, show(*a)),
                  "see the op catalog (vyre ops) for the operators of each type");
      return std::nullopt;
    }
    return bin_result_type(e.bin_op, *a);
  }

  MaybeType un(const Expr& e, const std::vector<MaybeType>& args, const std::string& path) {
    if (static_cast<int>(e.un_op) >= kUnOpCount) {
      report(Check::InvalidType, path, "the unary operator is out of range", "use an operator of SPEC §2");
      return std::nullopt;
    }
    MaybeType a = args[0];
    if (!a) return std::nullopt;
    if (!un_op_defined(e.un_op, *a)) {
      not_defined(path, fmt::format("un.{}.{} is not an operator", un_op_name(e.un_op), show(*a)),
                  "see the op catalog (vyre ops) for the operators of each type");
      return std::nullopt;
    }
    return un_result_type(e.un_op, *a);
  }

  MaybeType select(const Expr& e, const std::vector<MaybeType>& args, const std::string& path) {
    expect(args[0], Type::Bool, operand_path(e, 0, path), "a select condition");
    MaybeType a = args[1];
    MaybeType b = args[2];
    if (a && b && *a != *b) {
      report(Check::TypeMismatch, path, fmt::format("select between a {} and a {}", show(*a), show(*b)),
             "give both arms the same type (cast one of them)");
      return std::nullopt;
    }
    return a ? a : b;
  }

  MaybeType conversion(const Expr& e, const std::vector<MaybeType>& args, const std::string& path) {
    bool is_cast = e.kind == ExprKind::Cast;
    std::string_view kind = is_cast ? "cast" : "bitcast";
    if (!is_valid_type(e.type)) {
      report(Check::InvalidType, path, fmt::format("the {} target type is out of range", kind), "use a value type");
      return std::nullopt;
    }
    MaybeType from = args[0];
    if (!from) return is_value_type(e.type) ? MaybeType(e.type) : std::nullopt;
    if (*from == e.type) {
      report(Check::CastToSameType, path, fmt::format("{} of a {} to {}", kind, show(*from), show(e.type)),
             "remove the conversion: the value already has that type");
      return e.type;
    }
    bool defined = is_cast ? cast_defined(*from, e.type) : bitcast_defined(*from, e.type);
    if (!defined) {
      not_defined(path, fmt::format("{}.{}.{} is not an operator", kind, show(*from), show(e.type)),
                  is_cast ? "cast between value types only (bool, u32, i32, u64, i64, f32, f64)"
                          : "bitcast only between u32/i32/f32 or between u64/i64/f64");
      return is_value_type(e.type) ? MaybeType(e.type) : std::nullopt;
    }
    return e.type;
  }

  MaybeType fma(const std::vector<MaybeType>& args, const std::string& path) {
    if (!args[0] || !args[1] || !args[2]) return std::nullopt;
    Type t = *args[0];
    if (*args[1] != t || *args[2] != t) {
      report(Check::TypeMismatch, path,
             fmt::format("fma of a {}, a {} and a {}", show(t), show(*args[1]), show(*args[2])),
             "give all three operands the same float type");
      return std::nullopt;
    }
    if (t != Type::F32 && t != Type::F64) {
      not_defined(path, fmt::format("fma.{} is not an operator", show(t)), "fma takes f32 or f64 operands");
      return std::nullopt;
    }
    return t;
  }

  MaybeType atomic(const Expr& e, const std::vector<MaybeType>& args, const std::string& path) {
    if (static_cast<int>(e.atomic_op) >= kAtomicOpCount) {
      report(Check::InvalidType, path, "the atomic operator is out of range", "use an atomic op of SPEC §2");
      return std::nullopt;
    }
    check_index(args[0], operand_path(e, 0, path));
    const BufferDecl* buffer = find_buffer(e.name, path);
    if (buffer == nullptr || !is_valid_type(buffer->element)) return std::nullopt;
    Type element = buffer->element;
    std::string_view op = atomic_op_name(e.atomic_op);
    if (!is_writable(buffer->access))
      report(Check::NotWritable, path,
             fmt::format("atomic {} on {} buffer \"{}\"", op, access_name(buffer->access), buffer->name),
             "declare the buffer read_write, output or workgroup");
    if (element != Type::U32 && element != Type::I32 && element != Type::U64) {
      report(Check::AtomicElement, path,
             fmt::format("atomic {} on buffer \"{}\" of {}", op, buffer->name, show(element)),
             "atomics work on u32 and i32 buffers (and u64 for add, exchange, compare_exchange)");
      return std::nullopt;
    }
    if (!atomic_defined(e.atomic_op, element, buffer->access == Access::Workgroup))
      not_defined(path, fmt::format("atomic.{}.{} is not an operator", op, show(element)),
                  "u64 atomics are add, exchange and compare_exchange only");
    for (std::size_t i = 1; i < args.size(); ++i) {
      if (!args[i] || *args[i] == element) continue;
      report(Check::TypeMismatch, operand_path(e, i, path),
             fmt::format("the {} of atomic {} on a {} buffer is a {}", expr_operand_name(e, i), op,
                         show(element), show(*args[i])),
             fmt::format("make it a {}", show(element)));
    }
    return element;
  }

  MaybeType shuffle(const Expr& e, const std::vector<MaybeType>& args, const std::string& path) {
    expect(args[1], Type::U32, operand_path(e, 1, path), "a shuffle lane");
    MaybeType value = args[0];
    if (!value) return std::nullopt;
    if (!shuffle_defined(*value)) {
      not_defined(path, fmt::format("subgroup.shuffle.{} is not an operator", show(*value)),
                  "shuffle u32, i32, u64, i64, f32 or f64 values");
      return std::nullopt;
    }
    return value;
  }

  MaybeType reduce(const Expr& e, const std::vector<MaybeType>& args, const std::string& path) {
    if (static_cast<int>(e.reduce_op) >= kReduceOpCount) {
      report(Check::InvalidType, path, "the reduce operator is out of range", "use a reduce op of SPEC §2");
      return std::nullopt;
    }
    MaybeType value = args[0];
    if (!value) return std::nullopt;
    if (!reduce_defined(e.reduce_op, *value)) {
      not_defined(path,
                  fmt::format("subgroup.reduce.{}.{} is not an operator", reduce_op_name(e.reduce_op), show(*value)),
                  "reduce integers with add, mul, min, max, and, or, xor, and floats with add, mul, "
                  "min, max");
      return std::nullopt;
    }
    return value;
  }

  const Program& program_;
  BufferIndex buffers_;
  std::vector<Diagnostic> diagnostics_;
  ScopedNames<Variable> vars_;
  std::set<std::string> crossed_;  // names bound before a grid_sync
};

constexpr std::string_view kCheckNames[] = {
    "WorkgroupSize",     "NoBuffersOrBody",   "DuplicateBufferName", "DuplicateBinding",
    "InvalidName",       "BufferCount",       "OutputRange",         "InvalidType",
    "UnknownBuffer",     "UnknownVariable",   "DuplicateVariable",   "TypeMismatch",
    "OpNotDefined",      "NotWritable",       "AtomicElement",       "InvalidAxis",
    "GridSyncPlacement", "CrossesGridSync",   "SubgroupWorkgroup",   "ArityMismatch",
    "InvalidLiteral",    "AssignLoopVariable", "WorkgroupBufferAccess", "CastToSameType",
    "NestingDepth"};

}  // namespace

std::string_view check_name(Check code) {
  auto index = static_cast<std::size_t>(code) - static_cast<std::size_t>(Check::WorkgroupSize);
  return index < std::size(kCheckNames) ? kCheckNames[index] : std::string_view("Unknown");
}

std::vector<Diagnostic> validate(const Program& program) { return Validator(program).run(); }

void validate_or_throw(const Program& program) {
  std::vector<Diagnostic> diagnostics = validate(program);
  if (diagnostics.empty()) return;
  std::string message = fmt::format("the program fails validation ({} problem{}):", diagnostics.size(),
                                    diagnostics.size() == 1 ? "" : "s");
  for (const auto& d : diagnostics)
    message += fmt::format("\n  {} at {}: {}", check_name(d.code), d.path, d.message);
  throw Error(VYRE_ERR_INVALID_PROGRAM, message);
}

}  // namespace vyre
