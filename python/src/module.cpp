// The _vyre extension module: the C++ half of the Python package `vyre` (python/vyre/ is the
// other half and the public face; docs/PYTHON.md).
#include "bindings.hpp"

PYBIND11_MODULE(_vyre, m) {
  m.doc() = "vyre's C++ core (use the `vyre` package, not this module directly)";
  vyre::python::bind_errors(m);
  vyre::python::bind_ir(m);
  vyre::python::bind_program(m);
  vyre::python::bind_arrays(m);
  vyre::python::bind_registry(m);
  vyre::python::bind_backend(m);
  vyre::python::bind_resident(m);
  vyre::python::bind_dlpack(m);
  vyre::python::bind_group(m);
}
