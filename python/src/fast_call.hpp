// What the per-dispatch entries (backend.run, backend.run_resident) need to be written against the
// CPython calling convention (METH_FASTCALL | METH_KEYWORDS) instead of pybind11's dispatcher,
// which builds an argument tuple and a keyword dict, matches overloads and looks a type up in a
// hash table for every argument it casts. An entry recognizes exact vyre types by their Python type
// object and hands every call it does not take to its general (pybind11) binding, which behaves as
// the method always did and raises its errors.
#pragma once

#include <cstddef>
#include <exception>
#include <new>
#include <span>
#include <string>
#include <vector>

#include "bindings.hpp"

namespace vyre::python {

// The registered Python types of the classes the entries recognize, looked up once.
struct FastTypes {
  PyTypeObject* backend;
  const py::detail::type_info* backend_info;
  PyTypeObject* program;
  const py::detail::type_info* program_info;
  PyTypeObject* resident;
  const py::detail::type_info* resident_info;
  PyTypeObject* config;
  const py::detail::type_info* config_info;
};
const FastTypes& fast_types();

// The C++ value of a Python object of exactly the registered type `type` (no subclass), or null.
template <class T>
T* exact_value(PyObject* object, PyTypeObject* type, const py::detail::type_info* info) {
  if (Py_TYPE(object) != type) return nullptr;
  auto* instance = reinterpret_cast<py::detail::instance*>(object);
  if (instance->simple_layout) return static_cast<T*>(instance->simple_value_holder[0]);
  return static_cast<T*>(instance->get_value_and_holder(info).value_ptr());
}

// The backend and program of a call `backend.method(program, ...)` that an entry can take: both of
// exactly their registered types, and no keywords where a buffer of the program is named "program"
// (the method's own parameter: the general binding reports the clash). Nulls otherwise.
struct FastCall {
  const PyBackend* backend = nullptr;
  const PyProgram* program = nullptr;
};
FastCall fast_call(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);

// Whether the str `name` spells `expected` (keywords are str; anything else never matches).
bool spells(PyObject* name, const std::string& expected);

// A C++ exception as the Python error pybind11 would raise for it (its registered translators);
// returns null, the entry's error return.
PyObject* raise_translated(std::exception_ptr error);

// The call as given, to the method `general` (an interned str) of `self`: an entry's general path.
PyObject* call_general(PyObject* self, PyObject* general, PyObject* const* args, std::size_t nargsf,
                       PyObject* kwnames);

// Installs `def` (METH_FASTCALL | METH_KEYWORDS; static storage) as a method of `cls`.
void install_fast_method(py::handle cls, PyMethodDef& def);

// The arguments of a call `method(program, [config,] *objects, **objects)`: the objects matched to
// the slots `names(k)` names (positions in order, keywords by name), into `objects` (one per slot,
// all null on entry) and `config`. False where the call has another shape (too many positionals,
// an unknown or repeated keyword, a slot left empty): the entry then takes its general path.
template <class Names>
bool match_arguments(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, const Names& names,
                     std::span<PyObject*> objects, DispatchConfig& config) {
  const FastTypes& types = fast_types();
  Py_ssize_t next = 1;
  if (next < nargs && PyType_IsSubtype(Py_TYPE(args[next]), types.config)) {
    const auto* given = exact_value<DispatchConfig>(args[next], types.config, types.config_info);
    if (given == nullptr) return false;
    config = *given;
    ++next;
  }
  if (static_cast<std::size_t>(nargs - next) > objects.size()) return false;
  std::size_t position = 0;
  for (; next < nargs; ++next) objects[position++] = args[next];
  const Py_ssize_t nkw = kwnames == nullptr ? 0 : PyTuple_GET_SIZE(kwnames);
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* const name = PyTuple_GET_ITEM(kwnames, k);
    std::size_t slot = 0;
    while (slot < objects.size() && !spells(name, names(slot))) ++slot;
    if (slot == objects.size() || objects[slot] != nullptr) return false;
    objects[slot] = args[nargs + k];
  }
  for (PyObject* object : objects)
    if (object == nullptr) return false;
  return true;
}

// n value-initialized elements: up to kInline of them on the stack (only those n constructed), more
// on the heap.
template <class T, std::size_t kInline>
class SmallArray {
 public:
  explicit SmallArray(std::size_t n) : size_(n) {
    if (n > kInline) {
      heap_.resize(n);
      data_ = heap_.data();
      return;
    }
    data_ = reinterpret_cast<T*>(storage_);
    for (std::size_t i = 0; i < n; ++i) new (data_ + i) T();
  }
  SmallArray(const SmallArray&) = delete;
  SmallArray& operator=(const SmallArray&) = delete;
  ~SmallArray() {
    if (size_ <= kInline)
      for (std::size_t i = 0; i < size_; ++i) data_[i].~T();
  }
  T& operator[](std::size_t i) { return data_[i]; }
  std::size_t size() const { return size_; }
  std::span<T> span() { return {data_, size_}; }
  std::span<const T> span() const { return {data_, size_}; }

 private:
  std::size_t size_;
  T* data_ = nullptr;
  alignas(T) unsigned char storage_[sizeof(T) * kInline];
  std::vector<T> heap_;
};

}  // namespace vyre::python
