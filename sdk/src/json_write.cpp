// to_json: the JSON form of a program (docs/JSON.md). Written by hand rather than through
// boost::json::serialize so that float literals get the short spelling that reads back to the
// same bits, and so that the pretty layout puts one statement per line.
#include <fmt/format.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <string>

#include "vyre/error.hpp"
#include "vyre/json.hpp"
#include "vyre/ops.hpp"

namespace vyre {

namespace {

constexpr std::uint32_t kCanonicalNan32 = 0x7FC00000u;
constexpr std::uint64_t kCanonicalNan64 = 0x7FF8000000000000ull;

[[noreturn]] void unrepresentable(const std::string& path, std::string_view problem) {
  fail(VYRE_ERR_INVALID_PROGRAM, fmt::format("cannot write JSON: at {}: {}", path, problem),
       "run vyre::validate on the program and fix the problems it reports");
}

void append_escaped(std::string& out, std::string_view text) {
  out += '"';
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20) {
      out += fmt::format("\\u{:04x}", byte);
    } else {
      out += c;
    }
  }
  out += '"';
}

// A JSON number is integral unless it has a '.', 'e' or 'E'; float literals always get one so
// that they read back as the float they are ("-0" would read as the integer 0).
std::string as_float_number(std::string text) {
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  return text;
}

template <typename T>
std::string shortest(T value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

// The reader parses a float literal's number as a correctly rounded double and, for f32, rounds
// that to float. The short float spelling is used when that path gives the same bits back;
// otherwise the exact double value of the float (always exact).
std::string f32_number(float value) {
  std::string text = shortest(value);
  double reread = 0;
  std::from_chars(text.data(), text.data() + text.size(), reread);
  if (std::bit_cast<std::uint32_t>(static_cast<float>(reread)) == std::bit_cast<std::uint32_t>(value))
    return as_float_number(text);
  return as_float_number(shortest(static_cast<double>(value)));
}

std::string bits_string(std::uint64_t bits, Type t) {
  return fmt::format("\"0x{:0{}x}\"", bits, byte_size(t) * 2);
}

std::string float_literal(Type t, std::uint64_t bits) {
  bool f32 = t == Type::F32;
  double value = f32 ? static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits)))
                     : std::bit_cast<double>(bits);
  if (std::isnan(value)) {
    bool canonical = f32 ? bits == kCanonicalNan32 : bits == kCanonicalNan64;
    return canonical ? "\"nan\"" : bits_string(bits, t);
  }
  if (std::isinf(value)) return value > 0 ? "\"inf\"" : "\"-inf\"";
  if (f32) return f32_number(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
  return as_float_number(shortest(value));
}

class Writer {
 public:
  explicit Writer(bool pretty) : pretty_(pretty) {}

  std::string write(const Program& p) {
    out_ += '{';
    line(1);
    out_ += fmt::format("\"vyre\":{}1,", space());
    line(1);
    out_ += fmt::format("\"workgroup_size\":{}[{},{}{},{}{}],", space(), p.workgroup_size[0], space(),
                        p.workgroup_size[1], space(), p.workgroup_size[2]);
    line(1);
    buffers(p);
    out_ += ',';
    line(1);
    out_ += "\"body\":";
    out_ += space();
    nodes(p.body, "body", 1);
    line(0);
    out_ += '}';
    return std::move(out_);
  }

 private:
  std::string_view space() const { return pretty_ ? " " : ""; }
  void line(int indent) {
    if (!pretty_) return;
    out_ += '\n';
    out_.append(static_cast<std::size_t>(indent) * 2, ' ');
  }
  void key(std::string_view name) {
    append_escaped(out_, name);
    out_ += ':';
    out_ += space();
  }
  void comma() {
    out_ += ',';
    out_ += space();
  }
  void string_field(std::string_view name, std::string_view value) {
    key(name);
    append_escaped(out_, value);
  }

  void buffers(const Program& p) {
    out_ += "\"buffers\":";
    out_ += space();
    out_ += '[';
    for (std::size_t i = 0; i < p.buffers.size(); ++i) {
      if (i > 0) out_ += ',';
      line(2);
      buffer(p.buffers[i], fmt::format("buffers[{}]", i));
    }
    if (!p.buffers.empty()) line(1);
    out_ += ']';
  }

  void buffer(const BufferDecl& d, const std::string& path) {
    if (!is_valid_type(d.element)) unrepresentable(path, "the element type is out of range");
    if (static_cast<int>(d.access) >= kAccessCount) unrepresentable(path, "the access is out of range");
    out_ += '{';
    string_field("name", d.name);
    comma();
    key("binding");
    out_ += std::to_string(d.binding);
    comma();
    string_field("access", access_name(d.access));
    comma();
    string_field("element", type_name(d.element));
    comma();
    key("count");
    out_ += std::to_string(d.count);
    if (d.output_byte_range) {
      comma();
      key("output_byte_range");
      out_ += fmt::format("[{},{}{}]", d.output_byte_range->begin, space(), d.output_byte_range->end);
    }
    out_ += '}';
  }

  void nodes(const std::vector<Node>& body, const std::string& path, int indent) {
    out_ += '[';
    for (std::size_t i = 0; i < body.size(); ++i) {
      if (i > 0) out_ += ',';
      line(indent + 1);
      node(body[i], fmt::format("{}[{}]", path, i), indent + 1);
    }
    if (!body.empty()) line(indent);
    out_ += ']';
  }

  void expect_exprs(const Node& n, std::size_t count, const std::string& path) {
    if (n.exprs.size() != count)
      unrepresentable(path, fmt::format("a '{}' node needs {} expressions but has {}",
                                        node_kind_name(n.kind), count, n.exprs.size()));
  }

  void node_expr(const Node& n, std::size_t i, const std::string& path) {
    std::string name = node_expr_name(n.kind, i);
    key(name);
    expr(n.exprs[i], path + "." + name);
  }

  void node_body(const Node& n, bool else_body, const std::string& path, int indent) {
    std::string_view name = node_body_name(n.kind, else_body);
    key(name);
    nodes(else_body ? n.else_body : n.body, fmt::format("{}.{}", path, name), indent);
  }

  void node(const Node& n, const std::string& path, int indent) {
    out_ += '{';
    switch (n.kind) {
      case NodeKind::Let:
      case NodeKind::Assign:
        expect_exprs(n, 1, path);
        string_field(node_kind_name(n.kind), n.name);
        comma();
        node_expr(n, 0, path);
        break;
      case NodeKind::Store:
        expect_exprs(n, 2, path);
        string_field("store", n.name);
        comma();
        node_expr(n, 0, path);
        comma();
        node_expr(n, 1, path);
        break;
      case NodeKind::If:
        expect_exprs(n, 1, path);
        node_expr(n, 0, path);
        comma();
        node_body(n, false, path, indent);
        if (!n.else_body.empty()) {
          comma();
          node_body(n, true, path, indent);
        }
        break;
      case NodeKind::Loop:
        expect_exprs(n, 2, path);
        string_field("loop", n.name);
        comma();
        node_expr(n, 0, path);
        comma();
        node_expr(n, 1, path);
        comma();
        node_body(n, false, path, indent);
        break;
      case NodeKind::Return:
        expect_exprs(n, 0, path);
        key("return");
        out_ += "true";
        break;
      case NodeKind::Block:
        expect_exprs(n, 0, path);
        node_body(n, false, path, indent);
        break;
      case NodeKind::Barrier:
        expect_exprs(n, 0, path);
        if (static_cast<int>(n.barrier) > 1) unrepresentable(path, "the barrier kind is out of range");
        string_field("barrier", barrier_name(n.barrier));
        break;
      default: unrepresentable(path, "the node kind is out of range");
    }
    out_ += '}';
  }

  void expect_args(const Expr& e, std::size_t count, const std::string& path) {
    if (e.args.size() != count)
      unrepresentable(path, fmt::format("a '{}' expression needs {} operands but has {}",
                                        expr_kind_name(e.kind), count, e.args.size()));
  }

  void operand(const Expr& e, std::size_t i, const std::string& path) {
    std::string name = expr_operand_name(e, i);
    key(name);
    expr(e.args[i], path + "." + name);
  }

  // Operands after the discriminating key: ", "name": expr" for i in [first, end).
  void operands(const Expr& e, std::size_t first, const std::string& path) {
    for (std::size_t i = first; i < e.args.size(); ++i) {
      comma();
      operand(e, i, path);
    }
  }

  void type_field(std::string_view name, Type t, const std::string& path) {
    if (!is_valid_type(t)) unrepresentable(path, "a type is out of range");
    string_field(name, type_name(t));
  }

  void literal(const Expr& e, const std::string& path) {
    expect_args(e, 0, path);
    type_field("lit", e.type, path);
    comma();
    key("value");
    out_ += literal_value(e, path);
  }

  std::string literal_value(const Expr& e, const std::string& path) {
    // Bits the type cannot hold (an invalid literal the validator reports) stay representable.
    std::uint64_t mask = bit_width(e.type) >= 64 ? ~0ull : (1ull << bit_width(e.type)) - 1;
    if (!is_value_type(e.type) || (e.bits & ~mask) != 0) return bits_string(e.bits, Type::U64);
    switch (e.type) {
      case Type::Bool: return e.bits != 0 ? "true" : "false";
      case Type::U32:
      case Type::U64: return std::to_string(e.bits);
      case Type::I32: return std::to_string(static_cast<std::int32_t>(static_cast<std::uint32_t>(e.bits)));
      case Type::I64: return std::to_string(static_cast<std::int64_t>(e.bits));
      case Type::F32:
      case Type::F64: return float_literal(e.type, e.bits);
      default: unrepresentable(path, "a literal has a storage-only type");
    }
  }

  void named_op(std::string_view kind_key, std::string_view op_name, const std::string& path) {
    if (op_name == "?") unrepresentable(path, "an operator is out of range");
    string_field(kind_key, op_name);
  }

  void expr(const Expr& e, const std::string& path) {
    out_ += '{';
    switch (e.kind) {
      case ExprKind::Lit: literal(e, path); break;
      case ExprKind::Var:
        expect_args(e, 0, path);
        string_field("var", e.name);
        break;
      case ExprKind::Load:
        expect_args(e, 1, path);
        string_field("load", e.name);
        operands(e, 0, path);
        break;
      case ExprKind::BufLen:
        expect_args(e, 0, path);
        string_field("buf_len", e.name);
        break;
      case ExprKind::InvocationId:
      case ExprKind::LocalId:
      case ExprKind::WorkgroupId:
      case ExprKind::NumWorkgroups:
        expect_args(e, 0, path);
        string_field("builtin", expr_kind_name(e.kind));
        comma();
        key("axis");
        out_ += std::to_string(e.axis);
        break;
      case ExprKind::SubgroupLane:
      case ExprKind::SubgroupSize:
        expect_args(e, 0, path);
        string_field("builtin", expr_kind_name(e.kind));
        break;
      case ExprKind::Bin:
        expect_args(e, 2, path);
        named_op("bin", bin_op_name(e.bin_op), path);
        operands(e, 0, path);
        break;
      case ExprKind::Un:
        expect_args(e, 1, path);
        named_op("un", un_op_name(e.un_op), path);
        operands(e, 0, path);
        break;
      case ExprKind::Select:
        expect_args(e, 3, path);
        operand(e, 0, path);
        operands(e, 1, path);
        break;
      case ExprKind::Cast:
      case ExprKind::Bitcast:
        expect_args(e, 1, path);
        type_field(expr_kind_name(e.kind), e.type, path);
        operands(e, 0, path);
        break;
      case ExprKind::Fma: fma(e, path); break;
      case ExprKind::Atomic:
        expect_args(e, e.atomic_op == AtomicOp::CompareExchange ? 3 : 2, path);
        named_op("atomic", atomic_op_name(e.atomic_op), path);
        comma();
        string_field("buffer", e.name);
        operands(e, 0, path);
        break;
      case ExprKind::SubgroupBallot:
        expect_args(e, 1, path);
        operand(e, 0, path);
        break;
      case ExprKind::SubgroupShuffle:
        expect_args(e, 2, path);
        operand(e, 0, path);
        operands(e, 1, path);
        break;
      case ExprKind::SubgroupReduce:
        expect_args(e, 1, path);
        named_op("reduce", reduce_op_name(e.reduce_op), path);
        operands(e, 0, path);
        break;
      default: unrepresentable(path, "the expression kind is out of range");
    }
    out_ += '}';
  }

  void fma(const Expr& e, const std::string& path) {
    expect_args(e, 3, path);
    key("fma");
    out_ += '[';
    for (std::size_t i = 0; i < 3; ++i) {
      if (i > 0) comma();
      expr(e.args[i], fmt::format("{}.fma[{}]", path, i));
    }
    out_ += ']';
  }

  bool pretty_;
  std::string out_;
};

}  // namespace

std::string to_json(const Program& program, bool pretty) { return Writer(pretty).write(program); }

}  // namespace vyre
