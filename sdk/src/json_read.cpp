// from_json: the JSON form of a program (docs/JSON.md) into the IR. Parsing goes through a
// Boost.JSON basic_parser with our own handler, which (1) re-reads every non-integer number with
// std::from_chars so floats are correctly rounded, (2) rejects duplicate keys, and (3) bounds the
// nesting depth. The conversion then rejects unknown keys and names the JSON path of every error.
#include <boost/json.hpp>
#include <boost/json/basic_parser_impl.hpp>
#include <fmt/format.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_set>

#include "vyre/error.hpp"
#include "vyre/json.hpp"
#include "vyre/ops.hpp"
#include "vyre/wire.hpp"

namespace vyre {

namespace {

namespace bj = boost::json;

// JSON nesting allowed by the parser: enough for kWireMaxDepth IR levels (each level is at most
// an object plus an array), small enough that nothing recurses dangerously.
constexpr std::size_t kJsonMaxDepth = 2 * kWireMaxDepth + 16;

std::string_view sv(bj::string_view s) { return {s.data(), s.size()}; }
bj::string_view bsv(std::string_view s) { return {s.data(), s.size()}; }
// The member `key` of an object known to have it.
const bj::value& at(const bj::object& o, std::string_view key) { return o.at(bsv(key)); }

// ---- parsing -------------------------------------------------------------------------------------

class Handler {
 public:
  static constexpr std::size_t max_object_size = bj::object::max_size();
  static constexpr std::size_t max_array_size = bj::array::max_size();
  static constexpr std::size_t max_key_size = bj::string::max_size();
  static constexpr std::size_t max_string_size = bj::string::max_size();

  bj::value_stack st;
  std::string problem;  // set when the handler itself rejects the input

  bool on_document_begin(bj::error_code&) { return true; }
  bool on_document_end(bj::error_code&) { return true; }
  bool on_object_begin(bj::error_code&) {
    keys_.emplace_back();
    return true;
  }
  bool on_object_end(std::size_t n, bj::error_code&) {
    keys_.pop_back();
    st.push_object(n);
    return true;
  }
  bool on_array_begin(bj::error_code&) { return true; }
  bool on_array_end(std::size_t n, bj::error_code&) {
    st.push_array(n);
    return true;
  }
  bool on_key_part(bj::string_view s, std::size_t, bj::error_code&) {
    key_.append(s.data(), s.size());
    st.push_chars(s);
    return true;
  }
  bool on_key(bj::string_view s, std::size_t, bj::error_code& ec) {
    key_.append(s.data(), s.size());
    if (!keys_.back().insert(key_).second) {
      problem = fmt::format("the key \"{}\" appears twice in one object", key_);
      ec = bj::error::syntax;
      return false;
    }
    key_.clear();
    st.push_key(s);
    return true;
  }
  bool on_string_part(bj::string_view s, std::size_t, bj::error_code&) {
    st.push_chars(s);
    return true;
  }
  bool on_string(bj::string_view s, std::size_t, bj::error_code&) {
    st.push_string(s);
    return true;
  }
  bool on_number_part(bj::string_view s, bj::error_code&) {
    number_.append(s.data(), s.size());
    return true;
  }
  bool on_int64(std::int64_t i, bj::string_view, bj::error_code&) {
    number_.clear();
    st.push_int64(i);
    return true;
  }
  bool on_uint64(std::uint64_t u, bj::string_view, bj::error_code&) {
    number_.clear();
    st.push_uint64(u);
    return true;
  }
  bool on_double(double, bj::string_view s, bj::error_code& ec) {
    number_.append(s.data(), s.size());
    double value = 0;
    auto result = std::from_chars(number_.data(), number_.data() + number_.size(), value);
    if (result.ec != std::errc() || result.ptr != number_.data() + number_.size()) {
      problem = fmt::format("the number {} is out of the range of a double", number_);
      ec = bj::error::syntax;
      return false;
    }
    number_.clear();
    st.push_double(value);
    return true;
  }
  bool on_bool(bool b, bj::error_code&) {
    st.push_bool(b);
    return true;
  }
  bool on_null(bj::error_code&) {
    st.push_null();
    return true;
  }
  bool on_comment_part(bj::string_view, bj::error_code&) { return true; }
  bool on_comment(bj::string_view, bj::error_code&) { return true; }

 private:
  std::vector<std::unordered_set<std::string>> keys_;  // keys of each open object
  std::string key_;
  std::string number_;
};

[[noreturn]] void syntax_error(std::string_view text, std::size_t offset, std::string_view problem) {
  std::size_t line = 1;
  std::size_t column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    column = text[i] == '\n' ? 1 : column + 1;
    if (text[i] == '\n') ++line;
  }
  fail(VYRE_ERR_DECODE, fmt::format("JSON: line {}, column {}: {}", line, column, problem),
       "correct the JSON syntax there (docs/JSON.md describes the program form)");
}

bj::value parse(std::string_view text) {
  bj::parse_options options;
  options.max_depth = kJsonMaxDepth;
  bj::basic_parser<Handler> parser(options);
  parser.handler().st.reset();
  bj::error_code ec;
  std::size_t used = parser.write_some(false, text.data(), text.size(), ec);
  if (ec) {
    std::string problem = parser.handler().problem;
    if (problem.empty()) problem = ec.message();
    if (ec == bj::error::too_deep)
      problem = fmt::format("nesting deeper than {} JSON levels", kJsonMaxDepth);
    syntax_error(text, used, problem);
  }
  if (used < text.size()) syntax_error(text, used, "extra data after the JSON document");
  return parser.handler().st.release();
}

// ---- conversion ----------------------------------------------------------------------------------

std::string join(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}
std::string index_path(const std::string& path, std::string_view key, std::size_t i) {
  return fmt::format("{}[{}]", join(path, key), i);
}

std::string kind_list(std::initializer_list<std::string_view> kinds) {
  std::string list;
  for (auto k : kinds) {
    if (!list.empty()) list += ", ";
    list += '"';
    list += k;
    list += '"';
  }
  return list;
}

const std::initializer_list<std::string_view> kNodeKeys = {
    "let", "assign", "store", "if", "loop", "return", "block", "barrier"};
const std::initializer_list<std::string_view> kExprKeys = {
    "lit", "var",   "load", "buf_len", "builtin", "bin",     "un",     "select",
    "cast", "bitcast", "fma", "atomic", "ballot",  "shuffle", "reduce"};

class Converter {
 public:
  Program program(const bj::value& root) {
    const bj::object& o = object(root, "", "the program");
    allow(o, "", {"vyre", "workgroup_size", "buffers", "body"});
    if (const bj::value* version = o.if_contains("vyre")) {
      if (unsigned_int(*version, "vyre", 0xFFFFFFFFu) != 1)
        error("vyre", "this program is JSON form version " + show(*version) +
                          ", this build reads version 1",
              "convert the program with a vyre build that reads its version");
    }
    Program p;
    if (const bj::value* wg = o.if_contains("workgroup_size")) p.workgroup_size = workgroup(*wg);
    if (const bj::value* buffers = o.if_contains("buffers")) {
      const bj::array& list = array(*buffers, "buffers", "the buffer list");
      for (std::size_t i = 0; i < list.size(); ++i)
        p.buffers.push_back(buffer(list[i], index_path("", "buffers", i), i));
    }
    if (const bj::value* body = o.if_contains("body")) p.body = nodes(*body, "body", 1);
    return p;
  }

 private:
  // ---- generic accessors ----
  [[noreturn]] static void error(const std::string& path, std::string_view problem,
                                 std::string_view fix) {
    std::string where = path.empty() ? std::string("the top level") : path;
    fail(VYRE_ERR_DECODE, fmt::format("JSON: at {}: {}", where, problem), fix);
  }

  static std::string_view type_of(const bj::value& v) {
    switch (v.kind()) {
      case bj::kind::null: return "null";
      case bj::kind::bool_: return "a boolean";
      case bj::kind::int64:
      case bj::kind::uint64: return "an integer";
      case bj::kind::double_: return "a number with a fraction or exponent";
      case bj::kind::string: return "a string";
      case bj::kind::array: return "an array";
      case bj::kind::object: return "an object";
    }
    return "a value";
  }

  // A scalar as a message shows it (doubles in their shortest form, not Boost's "1.5E0").
  static std::string show(const bj::value& v) {
    if (v.is_double()) return fmt::format("{}", v.get_double());
    return bj::serialize(v);
  }

  [[noreturn]] static void wrong_type(const bj::value& v, const std::string& path, std::string_view wanted) {
    error(path, fmt::format("expected {} but found {}", wanted, type_of(v)),
          fmt::format("write {} there (docs/JSON.md)", wanted));
  }

  // `path` is a view so that a temporary path does not look dangling to g++ 13's -Wdangling-reference.
  static const bj::object& object(const bj::value& v, std::string_view path, std::string_view what) {
    if (!v.is_object()) wrong_type(v, std::string(path), fmt::format("an object for {}", what));
    return v.get_object();
  }
  static const bj::array& array(const bj::value& v, std::string_view path, std::string_view what) {
    if (!v.is_array()) wrong_type(v, std::string(path), fmt::format("an array for {}", what));
    return v.get_array();
  }
  static std::string string(const bj::value& v, const std::string& path) {
    if (!v.is_string()) wrong_type(v, path, "a string");
    return std::string(sv(v.get_string()));
  }
  static std::uint64_t unsigned_int(const bj::value& v, const std::string& path, std::uint64_t max) {
    std::uint64_t value = 0;
    if (v.is_uint64()) {
      value = v.get_uint64();
    } else if (v.is_int64() && v.get_int64() >= 0) {
      value = static_cast<std::uint64_t>(v.get_int64());
    } else {
      error(path, fmt::format("expected an integer in 0..{} but found {}", max, show(v)),
            fmt::format("write a non-negative integer no larger than {}", max));
    }
    if (value > max)
      error(path, fmt::format("{} is larger than {}", value, max),
            fmt::format("write a non-negative integer no larger than {}", max));
    return value;
  }
  static std::uint32_t u32(const bj::value& v, const std::string& path) {
    return static_cast<std::uint32_t>(unsigned_int(v, path, 0xFFFFFFFFu));
  }

  static void allow(const bj::object& o, const std::string& path,
                    std::initializer_list<std::string_view> allowed) {
    for (const auto& member : o) {
      std::string_view key = sv(member.key());
      bool known = false;
      for (auto a : allowed) known = known || a == key;
      if (!known)
        error(join(path, key), fmt::format("unknown key \"{}\"", key),
              fmt::format("remove it or correct its spelling; allowed here: {}", kind_list(allowed)));
    }
  }

  static const bj::value& required(const bj::object& o, std::string_view key, const std::string& path,
                                   std::string_view what) {
    const bj::value* v = o.if_contains(bsv(key));
    if (v == nullptr)
      error(path, fmt::format("{} has no \"{}\" key", what, key), fmt::format("add \"{}\"", key));
    return *v;
  }

  // The one key of `kinds` that `o` has: it names the object's kind.
  static std::string_view discriminator(const bj::object& o, const std::string& path,
                                        std::initializer_list<std::string_view> kinds,
                                        std::string_view what) {
    std::string_view found;
    for (auto k : kinds) {
      if (!o.contains(bsv(k))) continue;
      if (!found.empty())
        error(path, fmt::format("{} has both \"{}\" and \"{}\"", what, found, k),
              fmt::format("keep exactly one of {}", kind_list(kinds)));
      found = k;
    }
    if (found.empty())
      error(path, fmt::format("{} has none of the keys that name its kind", what),
            fmt::format("add exactly one of {}", kind_list(kinds)));
    return found;
  }

  static void check_depth(std::uint32_t depth, const std::string& path) {
    if (depth > kWireMaxDepth)
      error(path, fmt::format("the program nests deeper than {} levels", kWireMaxDepth),
            "flatten deeply nested expressions into let statements");
  }

  // ---- program parts ----
  std::array<std::uint32_t, 3> workgroup(const bj::value& v) {
    std::array<std::uint32_t, 3> size{1, 1, 1};
    if (!v.is_array()) {
      size[0] = u32(v, "workgroup_size");
      return size;
    }
    const bj::array& axes = v.get_array();
    if (axes.empty() || axes.size() > 3)
      error("workgroup_size", fmt::format("has {} axes", axes.size()), "give 1 to 3 axes, e.g. [64, 1, 1]");
    for (std::size_t i = 0; i < axes.size(); ++i) size[i] = u32(axes[i], index_path("", "workgroup_size", i));
    return size;
  }

  BufferDecl buffer(const bj::value& v, const std::string& path, std::size_t index) {
    const bj::object& o = object(v, path, "a buffer");
    allow(o, path, {"name", "binding", "access", "element", "count", "output_byte_range"});
    BufferDecl d;
    d.name = string(required(o, "name", path, "a buffer"), join(path, "name"));
    d.binding = static_cast<std::uint32_t>(index);
    if (const bj::value* b = o.if_contains("binding")) d.binding = u32(*b, join(path, "binding"));
    std::string access = string(required(o, "access", path, "a buffer"), join(path, "access"));
    auto parsed_access = parse_access(access);
    if (!parsed_access)
      error(join(path, "access"), fmt::format("unknown access \"{}\"", access),
            "use one of \"read\", \"uniform\", \"read_write\", \"output\", \"workgroup\"");
    d.access = *parsed_access;
    d.element = type(required(o, "element", path, "a buffer"), join(path, "element"));
    if (const bj::value* c = o.if_contains("count")) d.count = u32(*c, join(path, "count"));
    if (const bj::value* r = o.if_contains("output_byte_range")) d.output_byte_range = range(*r, join(path, "output_byte_range"));
    return d;
  }

  static ByteRange range(const bj::value& v, const std::string& path) {
    const bj::array& pair = array(v, path, "a byte range");
    if (pair.size() != 2) error(path, fmt::format("has {} entries", pair.size()), "write [begin, end]");
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    return {unsigned_int(pair[0], path + "[0]", kMax), unsigned_int(pair[1], path + "[1]", kMax)};
  }

  static Type type(const bj::value& v, const std::string& path) {
    std::string name = string(v, path);
    auto t = parse_type(name);
    if (!t)
      error(path, fmt::format("unknown type \"{}\"", name),
            "use one of bool, u32, i32, u64, i64, f32, f64, u8, u16, i8, i16, f16, bf16");
    return *t;
  }

  // ---- statements ----
  std::vector<Node> nodes(const bj::value& v, const std::string& path, std::uint32_t depth) {
    const bj::array& list = array(v, path, "a list of statements");
    std::vector<Node> body;
    for (std::size_t i = 0; i < list.size(); ++i) body.push_back(node(list[i], fmt::format("{}[{}]", path, i), depth));
    return body;
  }

  Expr child(const bj::object& o, std::string_view key, const std::string& path, std::uint32_t depth,
             std::string_view what) {
    return expr(required(o, key, path, what), join(path, key), depth + 1);
  }

  Node node(const bj::value& v, const std::string& path, std::uint32_t depth) {
    check_depth(depth, path);
    const bj::object& o = object(v, path, "a statement");
    std::string_view kind = discriminator(o, path, kNodeKeys, "a statement");
    Node n;
    n.kind = *parse_node_kind(kind);
    std::string what = fmt::format("a \"{}\" statement", kind);
    switch (n.kind) {
      case NodeKind::Let:
      case NodeKind::Assign:
        allow(o, path, {kind, "value"});
        n.name = string(at(o, kind), join(path, kind));
        n.exprs.push_back(child(o, "value", path, depth, what));
        break;
      case NodeKind::Store:
        allow(o, path, {"store", "index", "value"});
        n.name = string(at(o, "store"), join(path, "store"));
        n.exprs.push_back(child(o, "index", path, depth, what));
        n.exprs.push_back(child(o, "value", path, depth, what));
        break;
      case NodeKind::If:
        allow(o, path, {"if", "then", "else"});
        n.exprs.push_back(child(o, "if", path, depth, what));
        n.body = nodes(required(o, "then", path, what), join(path, "then"), depth + 1);
        if (const bj::value* e = o.if_contains("else")) n.else_body = nodes(*e, join(path, "else"), depth + 1);
        break;
      case NodeKind::Loop:
        allow(o, path, {"loop", "from", "to", "body"});
        n.name = string(at(o, "loop"), join(path, "loop"));
        n.exprs.push_back(child(o, "from", path, depth, what));
        n.exprs.push_back(child(o, "to", path, depth, what));
        n.body = nodes(required(o, "body", path, what), join(path, "body"), depth + 1);
        break;
      case NodeKind::Return:
        allow(o, path, {"return"});
        if (!at(o, "return").is_bool() || !at(o, "return").get_bool())
          error(join(path, "return"), "expected true", "write {\"return\": true}");
        break;
      case NodeKind::Block:
        allow(o, path, {"block"});
        n.body = nodes(at(o, "block"), join(path, "block"), depth + 1);
        break;
      case NodeKind::Barrier: n.barrier = barrier(o, path); break;
    }
    return n;
  }

  static BarrierKind barrier(const bj::object& o, const std::string& path) {
    allow(o, path, {"barrier"});
    std::string name = string(at(o, "barrier"), join(path, "barrier"));
    auto kind = parse_barrier(name);
    if (!kind)
      error(join(path, "barrier"), fmt::format("unknown barrier \"{}\"", name),
            "use \"workgroup\" or \"grid_sync\"");
    return *kind;
  }

  // ---- expressions ----
  Expr expr(const bj::value& v, const std::string& path, std::uint32_t depth) {
    check_depth(depth, path);
    const bj::object& o = object(v, path, "an expression");
    std::string_view kind = discriminator(o, path, kExprKeys, "an expression");
    std::string what = fmt::format("a \"{}\" expression", kind);
    Expr e;
    auto arg = [&](std::string_view key) { e.args.push_back(child(o, key, path, depth, what)); };
    auto name_of = [&](std::string_view key) { return string(at(o, key), join(path, key)); };
    if (kind == "lit") {
      allow(o, path, {"lit", "value"});
      e.kind = ExprKind::Lit;
      e.type = type(at(o, "lit"), join(path, "lit"));
      e.bits = literal(required(o, "value", path, what), e.type, join(path, "value"));
    } else if (kind == "var") {
      allow(o, path, {"var"});
      e.kind = ExprKind::Var;
      e.name = name_of("var");
    } else if (kind == "load") {
      allow(o, path, {"load", "index"});
      e.kind = ExprKind::Load;
      e.name = name_of("load");
      arg("index");
    } else if (kind == "buf_len") {
      allow(o, path, {"buf_len"});
      e.kind = ExprKind::BufLen;
      e.name = name_of("buf_len");
    } else if (kind == "builtin") {
      builtin(o, path, e);
    } else if (kind == "bin") {
      allow(o, path, {"bin", "a", "b"});
      e.kind = ExprKind::Bin;
      e.bin_op = op(o, "bin", path, parse_bin_op);
      arg("a");
      arg("b");
    } else if (kind == "un") {
      allow(o, path, {"un", "a"});
      e.kind = ExprKind::Un;
      e.un_op = op(o, "un", path, parse_un_op);
      arg("a");
    } else if (kind == "select") {
      allow(o, path, {"select", "a", "b"});
      e.kind = ExprKind::Select;
      arg("select");
      arg("a");
      arg("b");
    } else if (kind == "cast" || kind == "bitcast") {
      allow(o, path, {kind, "value"});
      e.kind = kind == "cast" ? ExprKind::Cast : ExprKind::Bitcast;
      e.type = type(at(o, kind), join(path, kind));
      arg("value");
    } else if (kind == "fma") {
      allow(o, path, {"fma"});
      e.kind = ExprKind::Fma;
      fma(o, path, depth, e);
    } else if (kind == "atomic") {
      atomic(o, path, what, e);
      arg("index");
      arg("value");
      if (e.atomic_op == AtomicOp::CompareExchange) arg("expected");
    } else if (kind == "ballot") {
      allow(o, path, {"ballot"});
      e.kind = ExprKind::SubgroupBallot;
      arg("ballot");
    } else if (kind == "shuffle") {
      allow(o, path, {"shuffle", "lane"});
      e.kind = ExprKind::SubgroupShuffle;
      arg("shuffle");
      arg("lane");
    } else {
      allow(o, path, {"reduce", "value"});
      e.kind = ExprKind::SubgroupReduce;
      e.reduce_op = op(o, "reduce", path, parse_reduce_op);
      arg("value");
    }
    return e;
  }

  template <typename Enum>
  static Enum op(const bj::object& o, std::string_view key, const std::string& path,
                 std::optional<Enum> (*parse)(std::string_view)) {
    std::string name = string(at(o, key), join(path, key));
    auto parsed = parse(name);
    if (!parsed)
      error(join(path, key), fmt::format("unknown {} operator \"{}\"", key, name),
            "use an operator name from docs/JSON.md (the names of SPEC §2, lower case)");
    return *parsed;
  }

  static void builtin(const bj::object& o, const std::string& path, Expr& e) {
    std::string name = string(at(o, "builtin"), join(path, "builtin"));
    static constexpr ExprKind kBuiltins[] = {ExprKind::InvocationId, ExprKind::LocalId,
                                             ExprKind::WorkgroupId, ExprKind::NumWorkgroups,
                                             ExprKind::SubgroupLane, ExprKind::SubgroupSize};
    bool found = false;
    for (ExprKind k : kBuiltins) {
      if (expr_kind_name(k) != name) continue;
      e.kind = k;
      found = true;
    }
    if (!found)
      error(join(path, "builtin"), fmt::format("unknown builtin \"{}\"", name),
            "use invocation_id, local_id, workgroup_id, num_workgroups, subgroup_lane or "
            "subgroup_size (and {\"buf_len\": buffer} for a buffer's length)");
    bool has_axis = e.kind != ExprKind::SubgroupLane && e.kind != ExprKind::SubgroupSize;
    if (!has_axis) {
      allow(o, path, {"builtin"});
      return;
    }
    allow(o, path, {"builtin", "axis"});
    if (const bj::value* axis = o.if_contains("axis")) e.axis = u32(*axis, join(path, "axis"));
  }

  void fma(const bj::object& o, const std::string& path, std::uint32_t depth, Expr& e) {
    const std::string fma_path = join(path, "fma");
    const bj::array& operands = array(at(o, "fma"), fma_path, "the three fma operands");
    if (operands.size() != 3)
      error(fma_path, fmt::format("has {} operands", operands.size()), "write [a, b, c] for a*b+c");
    for (std::size_t i = 0; i < 3; ++i)
      e.args.push_back(expr(operands[i], index_path(path, "fma", i), depth + 1));
  }

  static void atomic(const bj::object& o, const std::string& path, const std::string& what, Expr& e) {
    e.kind = ExprKind::Atomic;
    e.atomic_op = op(o, "atomic", path, parse_atomic_op);
    if (e.atomic_op == AtomicOp::CompareExchange) {
      allow(o, path, {"atomic", "buffer", "index", "value", "expected"});
    } else {
      allow(o, path, {"atomic", "buffer", "index", "value"});
    }
    e.name = string(required(o, "buffer", path, what), join(path, "buffer"));
  }

  // ---- literals ----
  static std::uint64_t literal(const bj::value& v, Type t, const std::string& path) {
    if (v.is_string()) return literal_string(sv(v.get_string()), t, path);
    if (t == Type::Bool) {
      if (!v.is_bool()) wrong_type(v, path, "true or false");
      return v.get_bool() ? 1 : 0;
    }
    if (t == Type::F32 || t == Type::F64) return float_literal(v, t, path);
    if (!is_value_type(t))
      error(path, fmt::format("a literal of storage-only type {} has no number form", type_name(t)),
            "use a value type (bool, u32, i32, u64, i64, f32, f64) or write the bits as \"0x...\"");
    return int_literal(v, t, path);
  }

  static std::uint64_t literal_string(std::string_view s, Type t, const std::string& path) {
    if (s.starts_with("0x") && s.size() > 2 && s.size() <= 18) {
      std::uint64_t bits = 0;
      auto result = std::from_chars(s.data() + 2, s.data() + s.size(), bits, 16);
      if (result.ec == std::errc() && result.ptr == s.data() + s.size()) return bits;
    }
    bool f32 = t == Type::F32;
    if (f32 || t == Type::F64) {
      if (s == "inf") return f32 ? 0x7F800000u : 0x7FF0000000000000ull;
      if (s == "-inf") return f32 ? 0xFF800000u : 0xFFF0000000000000ull;
      if (s == "nan") return f32 ? 0x7FC00000u : 0x7FF8000000000000ull;
    }
    error(path, fmt::format("\"{}\" is not a literal of type {}", s, type_name(t)),
          "write a JSON number (true/false for bool), \"inf\", \"-inf\" or \"nan\" for floats, or "
          "the bits as \"0x\" followed by 1 to 16 hex digits");
  }

  static std::uint64_t int_literal(const bj::value& v, Type t, const std::string& path) {
    bool is_signed = t == Type::I32 || t == Type::I64;
    bool wide = t == Type::U64 || t == Type::I64;
    std::int64_t lo = !is_signed ? 0 : (wide ? std::numeric_limits<std::int64_t>::min() : INT32_MIN);
    std::uint64_t hi = is_signed ? (wide ? static_cast<std::uint64_t>(INT64_MAX) : INT32_MAX)
                                 : (wide ? UINT64_MAX : UINT32_MAX);
    auto out_of_range = [&] {
      error(path, fmt::format("{} is not a {} (range {}..{})", show(v), type_name(t), lo, hi),
            fmt::format("write an integer in {}..{}, or the bits as \"0x...\"", lo, hi));
    };
    std::uint64_t mask = wide ? UINT64_MAX : UINT32_MAX;
    if (v.is_uint64()) {
      if (v.get_uint64() > hi) out_of_range();
      return v.get_uint64();
    }
    if (v.is_int64()) {
      std::int64_t i = v.get_int64();
      if (i < lo || (i > 0 && static_cast<std::uint64_t>(i) > hi)) out_of_range();
      return static_cast<std::uint64_t>(i) & mask;
    }
    if (v.is_double()) out_of_range();
    wrong_type(v, path, fmt::format("an integer of type {}", type_name(t)));
  }

  static std::uint64_t float_literal(const bj::value& v, Type t, const std::string& path) {
    bool f32 = t == Type::F32;
    if (v.is_int64())
      return f32 ? std::bit_cast<std::uint32_t>(static_cast<float>(v.get_int64()))
                 : std::bit_cast<std::uint64_t>(static_cast<double>(v.get_int64()));
    if (v.is_uint64())
      return f32 ? std::bit_cast<std::uint32_t>(static_cast<float>(v.get_uint64()))
                 : std::bit_cast<std::uint64_t>(static_cast<double>(v.get_uint64()));
    if (!v.is_double()) wrong_type(v, path, fmt::format("a number of type {}", type_name(t)));
    double d = v.get_double();
    if (!f32) return std::bit_cast<std::uint64_t>(d);
    float f = static_cast<float>(d);
    if (std::isinf(f))
      error(path, fmt::format("{} overflows f32", show(v)),
            "write a value within f32 range, or \"inf\"/\"-inf\"");
    return std::bit_cast<std::uint32_t>(f);
  }
};

}  // namespace

Program from_json(std::string_view text) { return Converter().program(parse(text)); }

}  // namespace vyre
