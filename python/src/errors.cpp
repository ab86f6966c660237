// Errors: every vyre::Error becomes a Python exception of the class vyre.errors registered for its
// stable code (a subclass of vyre.VyreError), carrying .code, .name, .message and .fix.
#include <vyre/error.hpp>

#include "bindings.hpp"

namespace vyre::python {

namespace {

// code -> Python class, filled by vyre/errors.py at import (_register_error_classes).
py::dict& error_classes() {
  static py::dict* classes = new py::dict();  // never destroyed: used until interpreter exit
  return *classes;
}

void raise_python(const vyre::Error& e) {
  const py::int_ code(static_cast<int>(e.code()));
  py::dict& classes = error_classes();
  if (!classes.contains(code)) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    return;
  }
  py::object cls = classes[code];
  py::object instance = cls(static_cast<int>(e.code()), std::string(e.what()));
  PyErr_SetObject(cls.ptr(), instance.ptr());
}

}  // namespace

[[noreturn]] void invalid_argument(const std::string& problem, const std::string& fix) {
  fail(VYRE_ERR_INVALID_ARGUMENT, problem, fix);
}

void bind_errors(py::module_& m) {
  m.def("status_names", [] {
    py::dict names;
    for (int code = VYRE_ERR_INVALID_ARGUMENT;; ++code) {
      const std::string_view name = status_name(static_cast<vyre_status>(code));
      if (name.empty() || name == "unknown") break;
      names[py::int_(code)] = std::string(name);
    }
    return names;
  }, "Every stable error code and its name, e.g. {1: 'invalid_argument', ...}.");
  m.def("_register_error_classes", [](const py::dict& classes) {
    error_classes().clear();
    for (auto item : classes) error_classes()[item.first] = item.second;
  });
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const vyre::Error& e) {
      raise_python(e);
    }
  });
}

}  // namespace vyre::python
