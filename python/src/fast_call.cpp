#include "fast_call.hpp"

#include <cstring>
#include <tuple>

namespace vyre::python {

namespace {

template <class T>
std::pair<PyTypeObject*, const py::detail::type_info*> registered() {
  const py::detail::type_info* info = py::detail::get_type_info(typeid(T), true);
  return {info->type, info};
}

}  // namespace

const FastTypes& fast_types() {
  static const FastTypes types = [] {
    FastTypes t{};
    std::tie(t.backend, t.backend_info) = registered<PyBackend>();
    std::tie(t.program, t.program_info) = registered<PyProgram>();
    std::tie(t.resident, t.resident_info) = registered<PyResident>();
    std::tie(t.config, t.config_info) = registered<DispatchConfig>();
    return t;
  }();
  return types;
}

FastCall fast_call(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  const FastTypes& types = fast_types();
  const auto* backend = exact_value<PyBackend>(self, types.backend, types.backend_info);
  const auto* program = nargs >= 1 ? exact_value<PyProgram>(args[0], types.program, types.program_info) : nullptr;
  if (backend == nullptr || program == nullptr || (kwnames != nullptr && program->binds_program_name())) return {};
  return {backend, program};
}

bool spells(PyObject* name, const std::string& expected) {
  Py_ssize_t length = 0;
  const char* text = PyUnicode_Check(name) ? PyUnicode_AsUTF8AndSize(name, &length) : nullptr;
  if (text == nullptr) {
    PyErr_Clear();
    return false;
  }
  return static_cast<std::size_t>(length) == expected.size() && std::memcmp(text, expected.data(), expected.size()) == 0;
}

// The exception is rethrown inside a pybind11 function, whose dispatcher translates it.
PyObject* raise_translated(std::exception_ptr error) {
  static thread_local std::exception_ptr pending;
  static PyObject* const rethrow = py::cpp_function([] {
    std::exception_ptr e = std::move(pending);
    pending = nullptr;
    std::rethrow_exception(e);
  }).release().ptr();  // never released: used until exit
  pending = std::move(error);
  PyObject* result = PyObject_CallNoArgs(rethrow);
  Py_XDECREF(result);  // null: the error is set
  return nullptr;
}

PyObject* call_general(PyObject* self, PyObject* general, PyObject* const* args, std::size_t nargsf,
                       PyObject* kwnames) {
  const auto method = py::reinterpret_steal<py::object>(PyObject_GetAttr(self, general));
  if (!method) return nullptr;
  return PyObject_Vectorcall(method.ptr(), args, nargsf, kwnames);
}

void install_fast_method(py::handle cls, PyMethodDef& def) {
  const auto descriptor = py::reinterpret_steal<py::object>(
      PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), &def));
  if (!descriptor) throw py::error_already_set();
  cls.attr(def.ml_name) = descriptor;
}

}  // namespace vyre::python
