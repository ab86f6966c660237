// Backends from Python: compile, run with NumPy arrays (plain, asynchronous, timed), pipelines,
// metrics. run(program, *args, **kwargs) takes an optional Config first, then inputs by position
// (declaration order) and by buffer name; it returns the one output array, or a tuple of them in
// declaration order. The GIL is released while a backend works.
#include <chrono>
#include <cstring>

#include <vyre/error.hpp>

#include "bindings.hpp"
#include "fast_call.hpp"

namespace vyre::python {

namespace {

std::shared_ptr<PyProgram> program_arg(const py::handle& h) {
  if (!py::isinstance<PyProgram>(h))
    invalid_argument("expected a vyre.Program, got " + py::str(py::type::of(h)).cast<std::string>(),
                     "build one with vyre.ProgramBuilder or load it with vyre.Program.load");
  return h.cast<std::shared_ptr<PyProgram>>();
}

std::vector<host::Bytes> spans(const std::vector<HostInput>& inputs) {
  std::vector<host::Bytes> out;
  out.reserve(inputs.size());
  for (const HostInput& in : inputs) out.push_back(in.bytes);
  return out;
}

}  // namespace

py::dict timing_dict(const Timing& t) {
  py::dict d;
  d["wall_ns"] = t.wall_ns;
  d["device_ns"] = t.has_device_ns ? py::object(py::int_(t.device_ns)) : py::object(py::none());
  d["enqueue_ns"] = t.enqueue_ns;
  d["wait_ns"] = t.wait_ns;
  return d;
}

namespace {

py::dict profile_dict(const vyre_device_profile& p) {
  py::dict d;
  d["kind"] = p.kind == VYRE_DEVICE_KIND_GPU ? "gpu" : "cpu";
  d["name"] = std::string(p.name);
  d["target"] = std::string(p.target);
  d["compute_capability"] = py::make_tuple(p.compute_major, p.compute_minor);
  d["driver_version"] = p.driver_version;
  d["multiprocessors"] = p.multiprocessors;
  d["total_memory_bytes"] = p.total_memory_bytes;
  d["subgroup_width"] = p.subgroup_width;
  d["max_threads_per_workgroup"] = p.max_threads_per_workgroup;
  return d;
}

struct PyPipeline {
  host::Pipeline pipeline;
  std::shared_ptr<PyProgram> program;
};

}  // namespace

RunArguments run_arguments(const std::shared_ptr<PyProgram>& program, const py::args& args,
                           const py::kwargs& kwargs) {
  RunArguments run{program, {}, {}};
  const vyre::Program& ir = program->ir();
  const std::vector<std::size_t>& inputs = program->inputs();
  std::vector<py::handle> given(inputs.size());
  std::size_t position = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i == 0 && py::isinstance<DispatchConfig>(args[0])) {
      run.config = args[0].cast<DispatchConfig>();
      continue;
    }
    if (position >= inputs.size())
      invalid_argument("too many positional inputs: the program has " + std::to_string(inputs.size()),
                       "pass one array per input buffer (program.inputs lists them)");
    given[position++] = args[i];
  }
  for (auto item : kwargs) {
    const std::string name = item.first.cast<std::string>();
    std::size_t k = 0;
    while (k < inputs.size() && ir.buffers[inputs[k]].name != name) ++k;
    if (k == inputs.size())
      invalid_argument("'" + name + "' is not an input buffer of the program",
                       "pass the inputs by their buffer names (program.inputs lists them)");
    if (given[k]) invalid_argument("input '" + name + "' is given twice", "pass it once");
    given[k] = item.second;
  }
  run.inputs.reserve(inputs.size());
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const BufferDecl& decl = ir.buffers[inputs[k]];
    if (!given[k]) invalid_argument("input '" + decl.name + "' is missing", "pass it as " + decl.name + "=array");
    run.inputs.push_back(host_input(decl, given[k]));
  }
  return run;
}

Outputs allocate_outputs(const PyProgram& program, const host::Program& compiled,
                         std::span<const host::Bytes> inputs) {
  const std::vector<std::size_t> sizes = compiled.output_sizes(inputs);
  Outputs out;
  out.arrays.reserve(sizes.size());
  out.spans.reserve(sizes.size());
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    out.arrays.push_back(new_output(program.ir().buffers[program.outputs()[k]], sizes[k]));
    out.spans.push_back(writable_bytes(out.arrays.back()));
  }
  return out;
}

bool PyPending::poll() const {
  py::gil_scoped_release release;
  return pending.poll();
}

bool PyPending::wait_for(double seconds) const {
  py::gil_scoped_release release;
  return pending.wait_for(static_cast<std::uint64_t>(seconds * 1e9));
}

py::object PyPending::wait() {
  {
    py::gil_scoped_release release;
    pending.wait();
  }
  if (!program) return py::none();
  return outputs_result(*program, outputs);
}

py::object outputs_result(const PyProgram& program, std::vector<py::array> arrays) {
  const auto& ir = program.ir();
  if (arrays.size() == 1) return finish_output(ir.buffers[program.outputs()[0]], std::move(arrays[0]));
  py::tuple out(arrays.size());
  for (std::size_t k = 0; k < arrays.size(); ++k)
    out[k] = finish_output(ir.buffers[program.outputs()[k]], std::move(arrays[k]));
  return out;
}

namespace {

// ---- run's fast entry ----------------------------------------------------------------------------
//
// run is a host round trip per call: its binding is a fast-call entry (fast_call.hpp). Inputs are
// matched to the program's input buffers, viewed (host_input: a plain C-contiguous array of the
// buffer's dtype without a copy), the outputs allocated as arrays, and the dispatch made with the
// GIL released. Every other call shape goes to the general binding (_run); so does every error
// raised here (through pybind11's translation).

constexpr std::size_t kInlineBuffers = 8;

PyObject* run_fast(PyObject* self, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  static PyObject* const general_name = PyUnicode_InternFromString("_run");  // never released
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  const auto general = [&] { return call_general(self, general_name, args, static_cast<std::size_t>(nargsf), kwnames); };
  try {
    const auto [backend, program] = fast_call(self, args, nargs, kwnames);
    if (program == nullptr) return general();
    const vyre::Program& ir = program->ir();
    const std::vector<std::size_t>& slots = program->inputs();
    const std::size_t n = slots.size();
    SmallArray<PyObject*, kInlineBuffers> objects(n);
    DispatchConfig config;
    if (!match_arguments(args, nargs, kwnames, [&](std::size_t k) -> const std::string& { return ir.buffers[slots[k]].name; },
                         objects.span(), config))
      return general();

    SmallArray<HostInput, kInlineBuffers> held(n);
    SmallArray<host::Bytes, kInlineBuffers> in(n);
    for (std::size_t k = 0; k < n; ++k) {
      held[k] = host_input(ir.buffers[slots[k]], objects[k]);
      in[k] = held[k].bytes;
    }
    const host::Program compiled = program->compiled_for(backend->backend);
    Outputs out = allocate_outputs(*program, compiled, in.span());
    {
      py::gil_scoped_release release;
      backend->backend.dispatch_into(compiled, in.span(), out.spans, config);
    }
    return outputs_result(*program, std::move(out.arrays)).release().ptr();
  } catch (...) {
    return raise_translated(std::current_exception());
  }
}

}  // namespace

void bind_backend(py::module_& m) {
  py::class_<PyPending>(m, "Pending",
      "An asynchronous dispatch; wait() returns its outputs (None for a resident dispatch).")
      .def("poll", &PyPending::poll, "True once the work finished (raises the work's error).")
      .def("wait", &PyPending::wait, "Wait for the work and return the outputs.")
      .def("wait_for", &PyPending::wait_for, py::arg("seconds"),
           "Wait up to `seconds`; True once finished, False on timeout.");

  py::class_<PyPipeline>(m, "Pipeline", "A program and config compiled for repeated host dispatch.")
      .def("run", [](const PyPipeline& p, const py::args& args, const py::kwargs& kwargs) {
        RunArguments run = run_arguments(p.program, args, kwargs);
        const std::vector<host::Bytes> in = spans(run.inputs);
        Outputs out = allocate_outputs(*p.program, p.pipeline.program(), in);
        {
          py::gil_scoped_release release;
          p.pipeline.dispatch_into(in, out.spans);
        }
        return outputs_result(*p.program, std::move(out.arrays));
      });

  py::class_<PyBackend>(m, "Backend", "One backend instance (from Registry.backend/create/route).")
      .def_property_readonly("id", [](const PyBackend& b) { return b.backend.label(); })
      .def_property_readonly("device", [](const PyBackend& b) { return profile_dict(b.backend.device_profile()); })
      .def("compile", [](const PyBackend& b, const py::handle& program) {
        program_arg(program)->compiled_for(b.backend);
      }, "Compile now (run() compiles on first use and reuses the result).")
      .def("_run", [](const PyBackend& b, const py::handle& program, const py::args& args,
                      const py::kwargs& kwargs) {
        RunArguments run = run_arguments(program_arg(program), args, kwargs);
        const host::Program compiled = run.program->compiled_for(b.backend);
        const std::vector<host::Bytes> in = spans(run.inputs);
        Outputs out = allocate_outputs(*run.program, compiled, in);
        {
          py::gil_scoped_release release;
          b.backend.dispatch_into(compiled, in, out.spans, run.config);
        }
        return outputs_result(*run.program, std::move(out.arrays));
      }, py::arg("program"), "run's general binding (run takes the calls it cannot).")
      .def("run_async", [](const PyBackend& b, const py::handle& program, const py::args& args,
                           const py::kwargs& kwargs) {
        RunArguments run = run_arguments(program_arg(program), args, kwargs);
        const host::Program compiled = run.program->compiled_for(b.backend);
        const std::vector<host::Bytes> in = spans(run.inputs);
        Outputs out = allocate_outputs(*run.program, compiled, in);
        PyPending pending{std::move(out.arrays), {}, {}, {}, run.program, {}};
        {
          py::gil_scoped_release release;
          pending.pending = b.backend.dispatch_async_into(compiled, in, out.spans, run.config);
        }
        return pending;
      }, py::arg("program"))
      .def("run_timed", [](const PyBackend& b, const py::handle& program, const py::args& args,
                           const py::kwargs& kwargs) {
        RunArguments run = run_arguments(program_arg(program), args, kwargs);
        const host::Program compiled = run.program->compiled_for(b.backend);
        const std::vector<host::Bytes> in = spans(run.inputs);
        host::TimedOutputs timed;
        {
          py::gil_scoped_release release;
          timed = b.backend.dispatch_timed(compiled, in, run.config);
        }
        std::vector<py::array> arrays;
        for (std::size_t k = 0; k < timed.outputs.size(); ++k) {
          py::array a = new_output(run.program->ir().buffers[run.program->outputs()[k]], timed.outputs[k].size());
          std::memcpy(a.mutable_data(), timed.outputs[k].data(), timed.outputs[k].size());
          arrays.push_back(std::move(a));
        }
        return py::make_tuple(outputs_result(*run.program, std::move(arrays)), timing_dict(timed.timing));
      }, py::arg("program"), "Like run, and the timing: (outputs, {wall_ns, device_ns, enqueue_ns, wait_ns}).")
      // For benchmarks of the binding's own cost (bench/python_binding_overhead.py): `calls`
      // host round trips of `program` on these arrays straight from the C++ host API
      // (Backend::dispatch, as vyre-bench P2 calls it), the GIL released; returns the nanoseconds.
      .def("_cpp_run_loop", [](const PyBackend& b, const py::handle& program, const py::list& arrays,
                               std::uint64_t calls) {
        const std::shared_ptr<PyProgram> p = program_arg(program);
        const host::Program compiled = p->compiled_for(b.backend);
        if (arrays.size() != p->inputs().size())
          invalid_argument("expected one array per input buffer", "pass them in declaration order");
        std::vector<HostInput> held;
        for (std::size_t k = 0; k < arrays.size(); ++k)
          held.push_back(host_input(p->ir().buffers[p->inputs()[k]], arrays[k]));
        const std::vector<host::Bytes> in = spans(held);
        py::gil_scoped_release release;
        const auto start = std::chrono::steady_clock::now();
        for (std::uint64_t i = 0; i < calls; ++i) (void)b.backend.dispatch(compiled, in);
        return static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
      }, py::arg("program"), py::arg("arrays"), py::arg("calls"))
      .def("pipeline", [](const PyBackend& b, const py::handle& program, std::optional<DispatchConfig> config,
                          std::uint32_t flags) {
        std::shared_ptr<PyProgram> p = program_arg(program);
        const host::Program compiled = p->compiled_for(b.backend);
        PyPipeline pipeline{{}, p};
        py::gil_scoped_release release;
        pipeline.pipeline = b.backend.pipeline(compiled, config.value_or(DispatchConfig{}), flags);
        return pipeline;
      }, py::arg("program"), py::arg("config") = py::none(), py::arg("flags") = 0)
      .def("metrics", [](const PyBackend& b) {
        py::dict d;
        for (const host::Metric& metric : b.backend.metrics()) d[py::str(metric.name)] = metric.value;
        return d;
      })
      .def("reset_metrics", [](const PyBackend& b) { b.backend.reset_metrics(); })
      .def("__repr__", [](const PyBackend& b) { return "<vyre.Backend " + b.backend.label() + ">"; });

  // run(program, *args, **kwargs): the fast entry (above); _run is its general binding.
  static PyMethodDef run_def{
      "run", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&run_fast)), METH_FASTCALL | METH_KEYWORDS,
      "run(program, [config,] *inputs, **inputs): a synchronous host dispatch; every input buffer given an array "
      "(by position in declaration order, or by name); returns the output array, or a tuple of them in "
      "declaration order."};
  install_fast_method(m.attr("Backend"), run_def);
}

}  // namespace vyre::python
