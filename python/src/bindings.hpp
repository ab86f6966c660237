// The pieces of the _vyre extension module (the C++ half of the Python package `vyre`), one
// bind_* function per concept, and the few types they share. docs/PYTHON.md describes the API.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vyre/backend.hpp"
#include "vyre/ir.hpp"

namespace vyre::python {

namespace py = pybind11;

void bind_errors(py::module_& m);
void bind_ir(py::module_& m);
void bind_program(py::module_& m);
void bind_arrays(py::module_& m);
void bind_registry(py::module_& m);
void bind_backend(py::module_& m);
void bind_resident(py::module_& m);

// A program as Python holds it: the IR (immutable once made) and what dispatching needs, computed
// once: the host input and output buffers' names, and each backend instance's compiled handle.
// Thread-safe.
class PyProgram {
 public:
  explicit PyProgram(vyre::Program program);

  const vyre::Program& ir() const { return *ir_; }
  const std::vector<std::size_t>& inputs() const { return inputs_; }    // buffer indices
  const std::vector<std::size_t>& outputs() const { return outputs_; }  // buffer indices
  // The compiled handle of this program on `backend` (compiled on first use).
  host::Program compiled_for(const host::Backend& backend) const;

 private:
  std::shared_ptr<const vyre::Program> ir_;
  std::vector<std::size_t> inputs_;
  std::vector<std::size_t> outputs_;
  mutable std::mutex mutex_;
  mutable std::vector<std::pair<vyre_backend*, host::Program>> compiled_;
};

// A backend instance as Python holds it.
struct PyBackend {
  host::Backend backend;
};

// An asynchronous dispatch: the host outputs it writes (none for resident work) stay alive here
// until the work finished. Destroying it waits for the work.
struct PyPending {
  std::vector<py::array> outputs;      // declared first, destroyed last:
  std::shared_ptr<PyProgram> program;  // null for resident work
  host::PendingDispatch pending;       // its destructor waits for the work that writes `outputs`

  bool poll() const;
  bool wait_for(double seconds) const;
  py::object wait();  // the outputs (None for resident work)
};

// Throw vyre::Error(VYRE_ERR_INVALID_ARGUMENT, problem. Fix: fix).
[[noreturn]] void invalid_argument(const std::string& problem, const std::string& fix);

// ---- arrays (arrays.cpp) ---------------------------------------------------------------------------

// The NumPy dtype that holds elements of storage type `t` (docs/PYTHON.md, "Types"): bool -> bool
// (converted to and from 4-byte words), f16 -> float16, bf16 -> uint16 (the raw bits).
py::dtype dtype_of(Type t);

// Host bytes of one input buffer: a view of a C-contiguous array of the buffer's dtype, or a
// converted copy (lists, non-contiguous arrays, bool). `keep` owns whatever the bytes point into.
struct HostInput {
  py::object keep;
  host::Bytes bytes;
};
HostInput host_input(const BufferDecl& decl, const py::handle& value);

// A fresh 1-D array for `byte_len` bytes of buffer `decl` (bool: 4-byte words, converted by
// finish_output).
py::array new_output(const BufferDecl& decl, std::size_t byte_len);
host::MutableBytes writable_bytes(py::array& array);
// The array handed to the caller (bool words become a bool array).
py::object finish_output(const BufferDecl& decl, py::array array);

// ---- dispatch arguments (backend.cpp) --------------------------------------------------------------

// run(program, *args, **kwargs): positional args are an optional Config and then inputs in
// declaration order; keyword args are inputs by buffer name.
struct RunArguments {
  std::shared_ptr<PyProgram> program;
  DispatchConfig config;
  std::vector<HostInput> inputs;  // per host input, declaration order
};
RunArguments run_arguments(const std::shared_ptr<PyProgram>& program, const py::args& args,
                           const py::kwargs& kwargs);

// Allocate the outputs for these inputs, as arrays, and the spans the dispatch writes.
struct Outputs {
  std::vector<py::array> arrays;
  std::vector<host::MutableBytes> spans;
};
Outputs allocate_outputs(const PyProgram& program, const host::Program& compiled,
                         const std::vector<HostInput>& inputs);
// {wall_ns, device_ns (None without a device clock), enqueue_ns, wait_ns}.
py::dict timing_dict(const Timing& t);

// One output: the array; several: a tuple in declaration order.
py::object outputs_result(const PyProgram& program, std::vector<py::array> arrays);

}  // namespace vyre::python
