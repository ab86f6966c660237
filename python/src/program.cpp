// Programs and dispatch configurations: vyre.Program (from the builder, JSON, wire bytes or a
// file; to JSON, wire bytes, a fingerprint; validation; the ops it uses) and vyre.Config.
#include <vyre/fingerprint.hpp>
#include <vyre/json.hpp>
#include <vyre/ops.hpp>
#include <vyre/validate.hpp>
#include <vyre/wire.hpp>

#include "bindings.hpp"

namespace vyre::python {

PyProgram::PyProgram(vyre::Program program)
    : ir_(std::make_shared<const vyre::Program>(std::move(program))),
      inputs_(ir_->input_indices()),
      outputs_(ir_->output_indices()) {
  for (std::size_t i = 0; i < ir_->buffers.size(); ++i) {
    if (ir_->buffers[i].access == Access::Workgroup) continue;
    bound_.push_back(i);
    if (ir_->buffers[i].name == "program") binds_program_name_ = true;
  }
}

host::Program PyProgram::compiled_for(const host::Backend& backend) const {
  // Per dispatch: the instance of the last call again, without the lock.
  if (const auto* last = last_.load(std::memory_order_acquire); last != nullptr && last->first == backend.native())
    return last->second;
  {
    std::lock_guard lock(mutex_);
    for (const auto& entry : compiled_)
      if (entry.first == backend.native()) {
        last_.store(&entry, std::memory_order_release);
        return entry.second;
      }
  }
  host::Program compiled;
  {
    py::gil_scoped_release release;
    compiled = backend.compile(*ir_);
  }
  std::lock_guard lock(mutex_);
  compiled_.emplace_back(backend.native(), compiled);
  return compiled;
}

namespace {

std::shared_ptr<PyProgram> make(vyre::Program p) { return std::make_shared<PyProgram>(std::move(p)); }

std::vector<std::uint8_t> bytes_arg(const py::bytes& data) {
  const std::string s = data;
  return {s.begin(), s.end()};
}

py::list names(const vyre::Program& p, const std::vector<std::size_t>& indices) {
  py::list out;
  for (std::size_t i : indices) out.append(p.buffers[i].name);
  return out;
}

std::array<std::uint32_t, 3> axes(const std::vector<std::uint32_t>& v, const char* what) {
  if (v.empty() || v.size() > 3)
    invalid_argument(std::string(what) + " needs 1 to 3 axes", "pass an int or a tuple of up to 3 ints");
  std::array<std::uint32_t, 3> out{1, 1, 1};
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = v[i];
  return out;
}

std::vector<std::uint32_t> axes_arg(const py::handle& h) {
  if (py::isinstance<py::int_>(h)) return {h.cast<std::uint32_t>()};
  return h.cast<std::vector<std::uint32_t>>();
}

// (x, y, z), or None when unset.
py::object axes_tuple(const std::optional<std::array<std::uint32_t, 3>>& axes) {
  if (!axes) return py::none();
  return py::make_tuple((*axes)[0], (*axes)[1], (*axes)[2]);
}

}  // namespace

void bind_program(py::module_& m) {
  py::class_<DispatchConfig>(m, "Config",
      "How to dispatch (SPEC §3): elements N, grid, workgroup override, fixpoint iterations.")
      .def(py::init([](std::optional<std::uint64_t> elements, py::object grid, py::object workgroup,
                       std::uint32_t fixpoint_iterations) {
             DispatchConfig c;
             c.dispatch_elements = elements;
             if (!grid.is_none()) c.grid = axes(axes_arg(grid), "grid");
             if (!workgroup.is_none()) c.workgroup_override = axes(axes_arg(workgroup), "workgroup");
             c.fixpoint_iterations = fixpoint_iterations;
             return c;
           }),
           py::kw_only(), py::arg("elements") = py::none(), py::arg("grid") = py::none(),
           py::arg("workgroup") = py::none(), py::arg("fixpoint_iterations") = 1)
      .def_readonly("elements", &DispatchConfig::dispatch_elements)
      .def_property_readonly("grid", [](const DispatchConfig& c) { return axes_tuple(c.grid); })
      .def_property_readonly("workgroup", [](const DispatchConfig& c) { return axes_tuple(c.workgroup_override); })
      .def_readonly("fixpoint_iterations", &DispatchConfig::fixpoint_iterations)
      .def("__eq__", [](const DispatchConfig& a, const DispatchConfig& b) { return a == b; });

  py::class_<Diagnostic>(m, "Diagnostic", "One validation problem.")
      .def_property_readonly("code", [](const Diagnostic& d) { return static_cast<int>(d.code); })
      .def_property_readonly("name", [](const Diagnostic& d) { return std::string(check_name(d.code)); })
      .def_readonly("path", &Diagnostic::path)
      .def_readonly("message", &Diagnostic::message)
      .def("__repr__", [](const Diagnostic& d) {
        return std::string(check_name(d.code)) + " at " + d.path + ": " + d.message;
      });

  py::class_<PyProgram, std::shared_ptr<PyProgram>>(m, "Program",
      "A vyre program (immutable). Make one with vyre.ProgramBuilder, Program.from_json, "
      "Program.from_wire or vyre.load.")
      .def(py::init([](std::vector<BufferDecl> buffers, std::vector<std::uint32_t> workgroup_size,
                       std::vector<Node> body) {
             vyre::Program p;
             p.buffers = std::move(buffers);
             p.workgroup_size = axes(workgroup_size, "workgroup_size");
             p.body = std::move(body);
             return make(std::move(p));
           }),
           py::arg("buffers"), py::arg("workgroup_size"), py::arg("body"))
      .def_static("from_json", [](const std::string& text) { return make(from_json(text)); })
      .def_static("from_wire", [](const py::bytes& data) { return make(decode_wire(bytes_arg(data))); })
      .def_static("load", [](const std::string& path) { return make(load_program_file(path)); },
                  "Read a program file: wire bytes or JSON.")
      .def("save", [](const PyProgram& p, const std::string& path) { save_program_file(p.ir(), path); },
           "Write JSON (.json) or wire bytes (any other extension).")
      .def("to_json", [](const PyProgram& p, bool pretty) { return to_json(p.ir(), pretty); },
           py::arg("pretty") = true)
      .def("to_wire", [](const PyProgram& p) {
        const std::vector<std::uint8_t> bytes = encode_wire(p.ir());
        return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      })
      .def_property_readonly("fingerprint", [](const PyProgram& p) { return fingerprint(p.ir()); })
      .def("validate", [](const PyProgram& p) { return validate(p.ir()); },
           "Every problem at once (an empty list when the program is valid).")
      .def("ops_used", [](const PyProgram& p) { return ops_used(p.ir()); },
           "The op ids the program uses (what a backend must declare to run it).")
      .def_property_readonly("buffers", [](const PyProgram& p) { return p.ir().buffers; })
      .def_property_readonly("workgroup_size", [](const PyProgram& p) {
        const auto& w = p.ir().workgroup_size;
        return py::make_tuple(w[0], w[1], w[2]);
      })
      .def_property_readonly("inputs", [](const PyProgram& p) { return names(p.ir(), p.inputs()); },
                             "Names of the host inputs, in the order positional inputs take.")
      .def_property_readonly("outputs", [](const PyProgram& p) { return names(p.ir(), p.outputs()); })
      .def("__eq__", [](const PyProgram& a, const PyProgram& b) { return a.ir() == b.ir(); })
      .def("__hash__", [](const PyProgram& p) { return py::hash(py::str(fingerprint(p.ir()))); })
      .def("__repr__", [](const PyProgram& p) {
        return "<vyre.Program " + fingerprint(p.ir()).substr(0, 12) + ", " +
               std::to_string(p.ir().buffers.size()) + " buffers>";
      });
}

}  // namespace vyre::python
