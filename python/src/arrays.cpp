// NumPy arrays in and out of host dispatches (docs/PYTHON.md, "Types"). Each storage type has one
// dtype; an input of that dtype and C-contiguous is passed without a copy, anything else array-like
// (a list, a strided view, a byte-swapped array) is converted to it, and an ndarray of another
// dtype is an error (a silent cast would hide a bug). bool buffers hold 4-byte words: a bool array
// is converted to and from them (a uint32 array of 0/1 words is taken as it is). bf16 has no NumPy
// dtype: its buffers exchange the raw bits as uint16 (vyre.bf16 converts from and to float32); an
// ml_dtypes bfloat16 array is taken as its bits.
#include <array>
#include <bit>
#include <cstring>
#include <optional>

#include <vyre/error.hpp>

#include "bindings.hpp"

namespace vyre::python {

namespace {

const char* dtype_name(Type t) {
  switch (t) {
    case Type::Bool: return "bool";
    case Type::U32: return "uint32";
    case Type::I32: return "int32";
    case Type::U64: return "uint64";
    case Type::I64: return "int64";
    case Type::F32: return "float32";
    case Type::F64: return "float64";
    case Type::U8: return "uint8";
    case Type::U16: return "uint16";
    case Type::I8: return "int8";
    case Type::I16: return "int16";
    case Type::F16: return "float16";
    case Type::BF16: return "uint16";
  }
  return "uint8";
}

// The dtype the buffer's bytes have on the host side (bool: its 4-byte words).
py::dtype word_dtype(Type t) { return dtype_of(t == Type::Bool ? Type::U32 : t); }

bool same_values(const py::dtype& a, const py::dtype& b) {
  return a.kind() == b.kind() && a.itemsize() == b.itemsize();
}

// Elements in this machine's byte order ('=' native, '|' not applicable; '<' or '>' may name it).
bool native_order(const py::dtype& d) {
  const char order = d.byteorder();
  constexpr char kNative = std::endian::native == std::endian::little ? '<' : '>';
  return order == '=' || order == '|' || order == kNative;
}

bool is_bfloat16(const py::dtype& d) {
  return d.itemsize() == 2 && d.attr("name").cast<std::string>() == "bfloat16";
}

py::array contiguous(const py::array& a) {
  if (a.flags() & py::array::c_style) return a;
  return py::module_::import("numpy").attr("ascontiguousarray")(a);
}

HostInput view(py::array a) {
  a = contiguous(a);
  const auto* data = static_cast<const std::byte*>(a.data());
  const std::size_t n = static_cast<std::size_t>(a.nbytes());
  return HostInput{a, host::Bytes(data, n)};
}

}  // namespace

// Made once per type (a dtype from a name costs a parse; a dispatch needs several).
py::dtype dtype_of(Type t) {
  static std::array<py::dtype*, kTypeCount> cache{};  // never destroyed: used until exit
  py::dtype*& slot = cache[static_cast<std::size_t>(t)];
  if (slot == nullptr) slot = new py::dtype(dtype_name(t));
  return *slot;
}

// The common input, seen without a call into NumPy: an ndarray (not a subclass) of exactly the
// buffer's dtype object (NumPy's builtin descriptors are singletons), C-contiguous. Null otherwise.
std::optional<HostInput> plain_view(const BufferDecl& decl, const py::handle& value) {
  static PyTypeObject* const ndarray = py::detail::npy_api::get().PyArray_Type_;
  if (Py_TYPE(value.ptr()) != ndarray || decl.element == Type::Bool) return std::nullopt;
  const py::detail::PyArray_Proxy* a = py::detail::array_proxy(value.ptr());
  if (a->descr != dtype_of(decl.element).ptr() || (a->flags & py::array::c_style) == 0) return std::nullopt;
  std::size_t n = byte_size(decl.element);
  for (int d = 0; d < a->nd; ++d) n *= static_cast<std::size_t>(a->dimensions[d]);
  return HostInput{py::reinterpret_borrow<py::object>(value), host::Bytes(reinterpret_cast<const std::byte*>(a->data), n)};
}

HostInput host_input(const BufferDecl& decl, const py::handle& value) {
  if (std::optional<HostInput> plain = plain_view(decl, value)) return std::move(*plain);
  const py::dtype want = word_dtype(decl.element);
  if (!py::isinstance<py::array>(value)) {
    // A list or another array-like: converted (bool lists through bool).
    const py::dtype as = decl.element == Type::Bool ? py::dtype("bool") : want;
    return host_input(decl, py::module_::import("numpy").attr("asarray")(value, as));
  }
  py::array a = py::reinterpret_borrow<py::array>(value);
  const py::dtype have = a.dtype();
  if (same_values(have, want)) return native_order(have) ? view(a) : view(a.attr("astype")(want));  // byte-swapped: converted
  if (decl.element == Type::Bool && have.kind() == 'b') return view(a.attr("astype")(want));
  if (decl.element == Type::BF16 && is_bfloat16(have)) return view(a.attr("view")(want));
  invalid_argument("input '" + decl.name + "' is a " + py::str(have.attr("name")).cast<std::string>() +
                       " array but the buffer holds " + std::string(type_name(decl.element)) +
                       " (NumPy " + dtype_name(decl.element) + ")",
                   "pass the array as " + std::string(dtype_name(decl.element)) + " (x.astype(numpy." +
                       dtype_name(decl.element) + "))");
}

void bind_arrays(py::module_& m) {
  m.def("dtype_of", [](const std::string& element) {
    const std::optional<Type> t = parse_type(element);
    if (!t) invalid_argument("unknown type '" + element + "'", "use one of vyre.TYPES");
    return dtype_of(*t);
  }, "The NumPy dtype of arrays for buffers of storage type `element`.");
}

py::array new_output(const BufferDecl& decl, std::size_t byte_len) {
  const py::dtype d = word_dtype(decl.element);
  const auto size = static_cast<std::size_t>(d.itemsize());
  return py::array(d, {static_cast<py::ssize_t>(byte_len / size)}, {});
}

host::MutableBytes writable_bytes(py::array& array) {
  return host::MutableBytes(static_cast<std::byte*>(array.mutable_data()),
                            static_cast<std::size_t>(array.nbytes()));
}

py::object finish_output(const BufferDecl& decl, py::array array) {
  if (decl.element != Type::Bool) return array;
  return array.attr("astype")(py::dtype("bool"));
}

}  // namespace vyre::python
