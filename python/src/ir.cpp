// The IR pieces the Python builder (vyre/builder.py) assembles: expressions, statements and buffer
// declarations, made by the same vyre::dsl functions the C++ builder uses, so that a program built
// in Python is the very IR the C++ builder makes. Names of types and operators are the strings of
// the JSON form ("u32", "xor", "sin", ...).
#include <bit>
#include <cmath>
#include <limits>

#include <vyre/builder.hpp>
#include <vyre/error.hpp>
#include <vyre/ops.hpp>
#include <vyre/typing.hpp>

#include "bindings.hpp"

namespace vyre::python {

namespace {

template <class T>
T parse_or_fail(std::optional<T> value, std::string_view what, const std::string& name) {
  if (!value) invalid_argument("unknown " + std::string(what) + " '" + name + "'",
                               "use one of the names vyre lists (vyre.TYPES, vyre.BIN_OPS, vyre.UN_OPS, ...)");
  return *value;
}
Type type_arg(const std::string& name) { return parse_or_fail(parse_type(name), "type", name); }

// The bits of a literal of type `t` from a Python bool, int or float; out of range is an error.
std::uint64_t literal_bits(Type t, const py::handle& value) {
  const std::string type = std::string(type_name(t));
  auto out_of_range = [&] {
    invalid_argument("the literal " + py::repr(value).cast<std::string>() + " does not fit " + type,
                     "use a value in the type's range or another type");
  };
  if (t == Type::F32 || t == Type::F64) {
    if (!py::isinstance<py::float_>(value) && !py::isinstance<py::int_>(value))
      invalid_argument("a " + type + " literal needs a number", "pass a Python int or float");
    const double v = value.cast<double>();
    return t == Type::F32 ? std::bit_cast<std::uint32_t>(static_cast<float>(v)) : std::bit_cast<std::uint64_t>(v);
  }
  if (!is_value_type(t)) invalid_argument(type + " is a storage type, not a value type",
                                          "use the widened type (u32, i32 or f32) for literals");
  if (py::isinstance<py::float_>(value))
    invalid_argument("the float " + py::repr(value).cast<std::string>() + " cannot be a " + type + " literal",
                     "use an int, or a float type");
  if (t == Type::Bool) {
    if (!py::isinstance<py::bool_>(value)) invalid_argument("a bool literal needs True or False", "pass a bool");
    return value.cast<bool>() ? 1 : 0;
  }
  if (py::isinstance<py::bool_>(value)) invalid_argument("a bool is not a " + type + " literal", "pass an int");
  const py::int_ big = py::reinterpret_borrow<py::int_>(value);
  const std::uint32_t bits = bit_width(t);
  if (is_signed_int(t)) {
    long long v = 0;
    try { v = big.cast<long long>(); } catch (const py::cast_error&) { out_of_range(); }
    const long long lo = bits == 64 ? std::numeric_limits<long long>::min() : -(1ll << (bits - 1));
    const long long hi = bits == 64 ? std::numeric_limits<long long>::max() : (1ll << (bits - 1)) - 1;
    if (v < lo || v > hi) out_of_range();
    return static_cast<std::uint64_t>(v) & (bits == 64 ? ~0ull : ((1ull << bits) - 1));
  }
  if (big < py::int_(0)) out_of_range();
  unsigned long long v = 0;
  try { v = big.cast<unsigned long long>(); } catch (const py::cast_error&) { out_of_range(); }
  if (bits < 64 && v >> bits) out_of_range();
  return v;
}

Expr builtin(const std::string& name, std::uint32_t axis) {
  const Builtin b = parse_or_fail(parse_builtin(name), "builtin", name);
  switch (b) {
    case Builtin::InvocationId: return dsl::invocation_id(axis);
    case Builtin::LocalId: return dsl::local_id(axis);
    case Builtin::WorkgroupId: return dsl::workgroup_id(axis);
    case Builtin::NumWorkgroups: return dsl::num_workgroups(axis);
    case Builtin::SubgroupLane: return dsl::subgroup_lane();
    case Builtin::SubgroupSize: return dsl::subgroup_size();
    case Builtin::BufLen: break;
  }
  invalid_argument("'buf_len' takes a buffer, not an axis", "use buffer.len()");
}

template <class Enum>
std::vector<std::string> names_of(int count, std::string_view (*name)(Enum)) {
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) out.emplace_back(name(static_cast<Enum>(i)));
  return out;
}

std::optional<std::string> type_of(const Expr& e, const std::vector<BufferDecl>& buffers,
                                   const std::vector<std::pair<std::string, std::string>>& vars) {
  Program program;
  program.buffers = buffers;
  Scope scope;
  for (const auto& [name, type] : vars) scope.declare(name, type_arg(type));
  const std::optional<Type> t = expr_type(e, program, scope);
  if (!t) return std::nullopt;
  return std::string(type_name(*t));
}

}  // namespace

void bind_ir(py::module_& m) {
  std::vector<std::string> types;
  for (Type t : kStorageTypes) types.emplace_back(type_name(t));
  m.attr("TYPES") = types;
  m.attr("BIN_OPS") = names_of<BinOp>(kBinOpCount, bin_op_name);
  m.attr("UN_OPS") = names_of<UnOp>(kUnOpCount, un_op_name);
  m.attr("ATOMIC_OPS") = names_of<AtomicOp>(kAtomicOpCount, atomic_op_name);
  m.attr("REDUCE_OPS") = names_of<ReduceOp>(kReduceOpCount, reduce_op_name);
  m.attr("ACCESS") = names_of<Access>(kAccessCount, access_name);
  m.def("widen", [](const std::string& t) { return std::string(type_name(widen(type_arg(t)))); },
        "The value type a load of storage type `t` yields (u8 -> u32, f16 -> f32, ...).");

  py::class_<Expr>(m, "Expr", "An IR expression (vyre::Expr). Build them with vyre.builder.")
      .def_property_readonly("kind", [](const Expr& e) { return std::string(expr_kind_name(e.kind)); })
      .def("same", [](const Expr& a, const Expr& b) { return a == b; }, "Structural equality.");
  py::class_<Node>(m, "Node", "An IR statement (vyre::Node).")
      .def_property_readonly("kind", [](const Node& n) { return std::string(node_kind_name(n.kind)); });
  py::class_<BufferDecl>(m, "BufferDecl", "A buffer declaration.")
      .def_readonly("name", &BufferDecl::name)
      .def_readonly("binding", &BufferDecl::binding)
      .def_property_readonly("access", [](const BufferDecl& d) { return std::string(access_name(d.access)); })
      .def_property_readonly("element", [](const BufferDecl& d) { return std::string(type_name(d.element)); })
      .def_readonly("count", &BufferDecl::count)
      .def_property_readonly("output_range", [](const BufferDecl& d) -> py::object {
        if (!d.output_byte_range) return py::none();
        return py::make_tuple(d.output_byte_range->begin, d.output_byte_range->end);
      })
      .def("__repr__", [](const BufferDecl& d) {
        return "BufferDecl(" + d.name + ", " + std::string(access_name(d.access)) + ", " +
               std::string(type_name(d.element)) + ", count=" + std::to_string(d.count) + ")";
      });

  m.def("buffer_decl", [](std::string name, std::uint32_t binding, const std::string& access,
                          const std::string& element, std::uint32_t count,
                          std::optional<std::pair<std::uint64_t, std::uint64_t>> range) {
    BufferDecl d;
    d.name = std::move(name);
    d.binding = binding;
    d.access = parse_or_fail(parse_access(access), "access", access);
    d.element = type_arg(element);
    d.count = count;
    if (range) d.output_byte_range = ByteRange{range->first, range->second};
    return d;
  });

  // Expressions.
  m.def("lit", [](const std::string& type, const py::handle& value) {
    const Type t = type_arg(type);
    return dsl::lit(t, literal_bits(t, value));
  });
  m.def("var", &dsl::var);
  m.def("var_name", [](const Expr& e) -> std::optional<std::string> {
    if (e.kind != ExprKind::Var) return std::nullopt;
    return e.name;
  });
  m.def("load", &dsl::load);
  m.def("buf_len", &dsl::buf_len);
  m.def("builtin", &builtin, py::arg("name"), py::arg("axis") = 0);
  m.def("bin", [](const std::string& op, Expr a, Expr b) {
    return dsl::bin(parse_or_fail(parse_bin_op(op), "binary operator", op), std::move(a), std::move(b));
  });
  m.def("un", [](const std::string& op, Expr a) {
    return dsl::un(parse_or_fail(parse_un_op(op), "unary operator", op), std::move(a));
  });
  m.def("select", &dsl::select);
  m.def("cast", [](const std::string& to, Expr v) { return dsl::cast(type_arg(to), std::move(v)); });
  m.def("bitcast", [](const std::string& to, Expr v) { return dsl::bitcast(type_arg(to), std::move(v)); });
  m.def("fma", &dsl::fma);
  m.def("atomic", [](const std::string& op, std::string buffer, Expr index, Expr value,
                     std::optional<Expr> expected) {
    const AtomicOp a = parse_or_fail(parse_atomic_op(op), "atomic operator", op);
    if (a == AtomicOp::CompareExchange) {
      if (!expected) invalid_argument("compare_exchange needs an expected value", "pass expected=");
      return dsl::compare_exchange(std::move(buffer), std::move(index), std::move(*expected), std::move(value));
    }
    return dsl::atomic(a, std::move(buffer), std::move(index), std::move(value));
  }, py::arg("op"), py::arg("buffer"), py::arg("index"), py::arg("value"), py::arg("expected") = py::none());
  m.def("ballot", &dsl::ballot);
  m.def("shuffle", &dsl::shuffle);
  m.def("reduce", [](const std::string& op, Expr v) {
    return dsl::reduce(parse_or_fail(parse_reduce_op(op), "reduce operator", op), std::move(v));
  });

  // Statements.
  m.def("let_", &dsl::let);
  m.def("assign", &dsl::assign);
  m.def("store", &dsl::store);
  m.def("if_", &dsl::if_, py::arg("cond"), py::arg("then_body"), py::arg("else_body") = std::vector<Node>{});
  m.def("loop", &dsl::loop);
  m.def("ret", &dsl::ret);
  m.def("block", &dsl::block);
  m.def("barrier", [] { return dsl::barrier(); });
  m.def("grid_sync", &dsl::grid_sync);

  m.def("expr_type", &type_of, py::arg("expr"), py::arg("buffers"), py::arg("variables"),
        "The value type of `expr` (None when ill-typed) with these buffers and (name, type) variables.");
}

}  // namespace vyre::python
