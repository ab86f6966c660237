// Resident buffers (memory on the backend's device), resident dispatches and sequences.
//
//   buf = backend.to_device(x)                  # alloc + upload
//   backend.run_resident(program, x=buf, out=out_buf)
//   y = out_buf.download(numpy.float32)
//
// A resident dispatch binds every non-workgroup buffer in declaration order (positionally after an
// optional Config, or by name): a ResidentBuffer, or an array for read/uniform buffers (host bytes).
#include <array>
#include <chrono>
#include <cstring>
#include <new>
#include <span>
#include <tuple>

#include <vyre/error.hpp>

#include "bindings.hpp"
#include "fast_call.hpp"

namespace vyre::python {

namespace {

// Another instance's buffer is rejected by the host wrapper (VYRE_ERR_INVALID_HANDLE).
PyResident resident_arg(const py::handle& h) {
  if (!py::isinstance<PyResident>(h))
    invalid_argument("expected a vyre.ResidentBuffer, got " + py::str(py::type::of(h)).cast<std::string>(),
                     "make one with backend.alloc or backend.to_device");
  return h.cast<PyResident>();
}

// The bindings of a resident dispatch, and what keeps host-bound arrays and DLPack objects alive
// during the call (destroyed in reverse: the imports before the capsules and objects).
struct ResidentArguments {
  std::shared_ptr<PyProgram> program;
  DispatchConfig config;
  std::vector<host::Binding> bindings;
  std::vector<py::object> keep;
  std::vector<py::object> producers;            // DLPack objects bound without a copy,
  std::vector<std::shared_ptr<void>> capsules;  // the capsules of those imported for this call,
  std::vector<PyResident> imported;             // and their imports (cached or not)
  ProducerWaits waits;
  bool cached = true;  // use the backend's import cache (not for asynchronous work: see bind_tensor)
};

std::vector<std::size_t> bound_buffers(const vyre::Program& ir) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < ir.buffers.size(); ++i)
    if (ir.buffers[i].access != Access::Workgroup) out.push_back(i);
  return out;
}

bool read_only(const BufferDecl& decl) { return decl.access == Access::Read || decl.access == Access::Uniform; }

bool on_cpu(const py::handle& value) {
  if (!py::hasattr(value, "__dlpack_device__")) return false;
  return value.attr("__dlpack_device__")().cast<py::tuple>()[0].cast<int>() == dlpack::kCPU;
}

host::Binding host_binding(const BufferDecl& decl, const py::handle& value, ResidentArguments& out);

// A ResidentBuffer as it is; a DLPack object imported without a copy (a CPU one for a read buffer
// goes as host bytes instead, which every backend takes); any other array as host bytes.
host::Binding binding_of(const PyBackend& backend, const BufferDecl& decl, const py::handle& value,
                         ResidentArguments& out) {
  if (PyObject_TypeCheck(value.ptr(), fast_types().resident)) return host::Binding::of(resident_arg(value).buffer);
  const bool array = py::isinstance<py::array>(value);
  // The cache first: an object found there was imported before (a NumPy array bound to a read
  // buffer goes as host bytes, never through it).
  // The caller holds `value` during the dispatch, and the binding holds the import.
  if (out.cached && !(array && read_only(decl)))
    if (std::optional<CachedImport> hit = cached_tensor(backend, value, read_only(decl), out.waits)) {
      require_element_fits(decl, hit->dtype);
      return host::Binding::of(std::move(hit->buffer));
    }
  const bool dlpack = !array && py::hasattr(value, "__dlpack__");
  if (!dlpack && !(array && !read_only(decl))) return host_binding(decl, value, out);
  if (dlpack && read_only(decl) && on_cpu(value))
    return binding_of(backend, decl, py::module_::import("numpy").attr("from_dlpack")(value), out);
  BoundTensor bound = bind_tensor(backend, value, read_only(decl), out.cached, out.waits);
  require_element_fits(decl, bound.resident.dtype);
  out.producers.push_back(std::move(bound.producer));
  if (bound.capsule) out.capsules.push_back(std::move(bound.capsule));
  out.imported.push_back(std::move(bound.resident));
  return host::Binding::of(out.imported.back().buffer);
}

host::Binding host_binding(const BufferDecl& decl, const py::handle& value, ResidentArguments& out) {
  if (!read_only(decl))
    invalid_argument("buffer '" + decl.name + "' (" + std::string(access_name(decl.access)) +
                         ") needs a ResidentBuffer in a resident dispatch",
                     "bind it to backend.alloc(...), backend.to_device(array), or a tensor with __dlpack__");
  HostInput in = host_input(decl, value);
  out.keep.push_back(in.keep);
  return host::Binding::host_bytes(in.bytes);
}

// `wait` false: the caller orders the dispatch after the producers' streams (run_resident).
ResidentArguments resident_arguments(const PyBackend& backend, const py::handle& program,
                                     const py::args& args, const py::kwargs& kwargs, bool cached = true,
                                     bool wait = true) {
  ResidentArguments out;
  out.cached = cached;
  out.program = program.cast<std::shared_ptr<PyProgram>>();
  const vyre::Program& ir = out.program->ir();
  const BufferBindings given = bind_buffers(ir, args, kwargs, &out.config, "buffer");
  for (std::size_t k = 0; k < given.slots.size(); ++k)
    out.bindings.push_back(binding_of(backend, ir.buffers[given.slots[k]], given.objects[k], out));
  if (wait) out.waits.wait();
  return out;
}

// A synchronous resident dispatch after the producers' work: where one producer stream is waited
// for and the backend can wait for it on the device (cuda's VYRE_EXTENSION_NATIVE_STREAM), the
// dispatch is queued behind it without a host synchronize; otherwise (or where the driver refuses
// the stream: nothing was queued then) the host synchronizes the producers' streams first.
void dispatch_after_producers(const PyBackend& b, const PyProgram& program, std::span<const host::Binding> bindings,
                              const DispatchConfig& config, const ProducerWaits& waits) {
  const host::Program compiled = program.compiled_for(b.backend);
  if (!waits.any()) {
    py::gil_scoped_release release;
    b.backend.dispatch_resident(compiled, bindings, config);
    return;
  }
  std::optional<std::uint64_t> stream;
  if (b.backend.can_wait_native_stream(VYRE_NATIVE_STREAM_CUDA)) stream = waits.single_stream();
  if (stream) {
    try {
      {
        py::gil_scoped_release release;
        b.backend.dispatch_resident_after(compiled, bindings, VYRE_NATIVE_STREAM_CUDA, *stream, config);
      }
      count_producer_wait(b, true);
      return;
    } catch (const vyre::Error& e) {
      if (e.code() != VYRE_ERR_INVALID_ARGUMENT) throw;
    }
  }
  count_producer_wait(b, false);
  waits.wait();
  py::gil_scoped_release release;
  b.backend.dispatch_resident(compiled, bindings, config);
}

void dispatch_after_producers(const PyBackend& b, ResidentArguments& run) {
  dispatch_after_producers(b, *run.program, run.bindings, run.config, run.waits);
}

// ---- run_resident's fast entry ------------------------------------------------------------------
//
// run_resident is called per dispatch: its binding is a fast-call entry (fast_call.hpp). The
// buffers' keywords are matched against the program's buffer names; ResidentBuffers are bound
// without copying anything but their handle; the bindings live on the stack. Anything else goes to
// the general binding (_run_resident); so does every error raised here (through pybind11's
// translation).

constexpr std::size_t kInlineBindings = 8;

// The rest of run_resident's fast entry where something other than a ResidentBuffer is bound
// from slot `first` on (DLPack objects, arrays): bound as the general path binds them, then the
// dispatch after their producers' streams. Its own frame: the common case needs none of this.
[[gnu::noinline]] void bind_others(const PyBackend& backend, const PyProgram& program, std::span<PyObject* const> objects,
                                   SmallArray<host::Binding, kInlineBindings>& bindings, std::size_t first,
                                   const DispatchConfig& config) {
  const FastTypes& types = fast_types();
  const vyre::Program& ir = program.ir();
  ResidentArguments others;  // what keeps host arrays and fresh imports alive, and the producers to wait for
  for (std::size_t k = first; k < objects.size(); ++k) {
    if (const auto* r = exact_value<PyResident>(objects[k], types.resident, types.resident_info))
      bindings[k] = host::Binding::of(r->buffer);
    else
      bindings[k] = binding_of(backend, ir.buffers[program.bound()[k]], objects[k], others);
  }
  dispatch_after_producers(backend, program, bindings.span(), config, others.waits);
}

PyObject* run_resident_fast(PyObject* self, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  static PyObject* const general_name = PyUnicode_InternFromString("_run_resident");  // never released
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  const auto general = [&] { return call_general(self, general_name, args, static_cast<std::size_t>(nargsf), kwnames); };
  try {
    const auto [backend, program] = fast_call(self, args, nargs, kwnames);
    if (program == nullptr) return general();
    const FastTypes& types = fast_types();
    const std::vector<std::size_t>& slots = program->bound();
    const std::size_t n = slots.size();
    const vyre::Program& ir = program->ir();
    SmallArray<PyObject*, kInlineBindings> objects(n);
    DispatchConfig config;
    if (!match_arguments(args, nargs, kwnames, [&](std::size_t k) -> const std::string& { return ir.buffers[slots[k]].name; },
                         objects.span(), config))
      return general();

    SmallArray<host::Binding, kInlineBindings> bindings(n);
    std::size_t k = 0;
    for (; k < n; ++k) {
      const auto* r = exact_value<PyResident>(objects[k], types.resident, types.resident_info);
      if (r == nullptr) break;
      bindings[k] = host::Binding::of(r->buffer);
    }
    if (k == n) {
      const host::Program compiled = program->compiled_for(backend->backend);
      py::gil_scoped_release release;
      backend->backend.dispatch_resident(compiled, bindings.span(), config);
    } else {
      bind_others(*backend, *program, objects.span(), bindings, k, config);
    }
    Py_RETURN_NONE;
  } catch (...) {
    return raise_translated(std::current_exception());
  }
}

// (program, bindings) or (program, bindings, config); bindings a list (declaration order) or a dict.
host::SequenceStep sequence_step(const host::Backend& backend, const py::handle& item) {
  const py::tuple t = py::reinterpret_borrow<py::object>(item).cast<py::tuple>();
  if (t.size() < 2 || t.size() > 3)
    invalid_argument("a sequence step is (program, buffers) or (program, buffers, config)",
                     "pass tuples of that shape");
  host::SequenceStep step;
  const auto program = t[0].cast<std::shared_ptr<PyProgram>>();
  step.program = program->compiled_for(backend);
  if (t.size() == 3 && !t[2].is_none()) step.config = t[2].cast<DispatchConfig>();
  const vyre::Program& ir = program->ir();
  const std::vector<std::size_t> slots = bound_buffers(ir);
  if (py::isinstance<py::dict>(t[1])) {
    const py::dict named = t[1].cast<py::dict>();
    for (std::size_t slot : slots) {
      const py::str name(ir.buffers[slot].name);
      if (!named.contains(name))
        invalid_argument("sequence step: buffer '" + ir.buffers[slot].name + "' is not bound",
                         "bind every non-workgroup buffer to a ResidentBuffer");
      step.buffers.push_back(resident_arg(named[name]).buffer);
    }
    return step;
  }
  for (const py::handle b : t[1]) step.buffers.push_back(resident_arg(b).buffer);
  return step;
}

}  // namespace

BufferBindings bind_buffers(const vyre::Program& ir, const py::args& args, const py::kwargs& kwargs,
                            DispatchConfig* config, const char* what_to_pass) {
  BufferBindings out;
  out.slots = bound_buffers(ir);
  out.objects.resize(out.slots.size());
  std::size_t position = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i == 0 && py::isinstance<DispatchConfig>(args[0])) {
      *config = args[0].cast<DispatchConfig>();
      continue;
    }
    if (position >= out.slots.size())
      invalid_argument("too many positional bindings: the program binds " + std::to_string(out.slots.size()) + " buffers",
                       "bind each non-workgroup buffer once, in declaration order or by name");
    out.objects[position++] = args[i];
  }
  for (auto item : kwargs) {
    const std::string name = item.first.cast<std::string>();
    std::size_t k = 0;
    while (k < out.slots.size() && ir.buffers[out.slots[k]].name != name) ++k;
    if (k == out.slots.size())
      invalid_argument("'" + name + "' is not a bindable buffer of the program", "bind buffers by their names");
    if (out.objects[k]) invalid_argument("buffer '" + name + "' is bound twice", "bind it once");
    out.objects[k] = item.second;
  }
  for (std::size_t k = 0; k < out.slots.size(); ++k) {
    const std::string& name = ir.buffers[out.slots[k]].name;
    if (!out.objects[k]) invalid_argument("buffer '" + name + "' is not bound", "pass " + name + "=" + what_to_pass);
  }
  return out;
}

void PyResident::upload(const py::handle& value, std::uint64_t offset) const {
  py::array a = py::module_::import("numpy").attr("ascontiguousarray")(value);
  const host::Bytes bytes(static_cast<const std::byte*>(a.data()), static_cast<std::size_t>(a.nbytes()));
  py::gil_scoped_release release;
  backend.upload(buffer, offset, bytes);
}

py::array PyResident::download(const py::object& dtype, std::optional<std::uint64_t> count,
                               std::uint64_t offset) const {
  const py::dtype d = dtype.is_none() ? numpy_dtype(this->dtype) : py::dtype::from_args(dtype);
  const auto item = static_cast<std::uint64_t>(d.itemsize());
  const std::uint64_t available = offset <= nbytes() ? (nbytes() - offset) / item : 0;
  const std::uint64_t n = count.value_or(available);
  py::array out(d, {static_cast<py::ssize_t>(n)}, {});
  host::ResidentRead read{buffer, offset, writable_bytes(out)};
  py::gil_scoped_release release;
  backend.download(std::span<const host::ResidentRead>(&read, 1));
  return out;
}

void PyResident::free() {
  if (const int alive = views->load(); alive > 0)
    fail(VYRE_ERR_BUSY, std::to_string(alive) + " DLPack view(s) of this buffer are alive (tensors made by "
                        "numpy/torch/cupy from_dlpack); freeing it would pull their memory away",
         "drop the tensors made from the buffer first (or keep the buffer)");
  py::gil_scoped_release release;  // the release of imported memory may call its owner's deleter
  buffer.free();
}

void bind_resident(py::module_& m) {
  py::class_<PyResident>(m, "ResidentBuffer", "A buffer on the backend's device.")
      .def_property_readonly("nbytes", &PyResident::nbytes)
      .def_property_readonly("freed", [](const PyResident& r) { return r.buffer.freed(); })
      .def("upload", &PyResident::upload, py::arg("array"), py::arg("offset") = 0,
           "Copy an array's bytes into the buffer at byte `offset`.")
      .def("download", &PyResident::download, py::arg("dtype") = py::none(),
           py::arg("count") = py::none(), py::arg("offset") = 0,
           "`count` elements of `dtype` (default: the buffer's dtype) from byte `offset` (default: "
           "to the end), as a new array.")
      .def_property_readonly("dtype", [](const PyResident& r) { return numpy_dtype(r.dtype); },
                             "The NumPy dtype its elements are seen with (download, DLPack).")
      .def_property_readonly("shape", [](const PyResident& r) { return py::tuple(py::cast(r.shape)); })
      .def("free", &PyResident::free,
           "Free it now (VYRE_ERR_BUSY while a dispatch or a DLPack view uses it); later use is "
           "invalid_handle.");

  auto backend = py::reinterpret_borrow<py::class_<PyBackend>>(m.attr("Backend"));
  backend
      .def("alloc", [](const PyBackend& b, std::uint64_t nbytes, const py::object& dtype) {
        const py::dtype d = py::dtype::from_args(dtype);
        const std::optional<dlpack::DataType> element = dlpack_dtype(d);
        const auto item = static_cast<std::uint64_t>(d.itemsize());
        if (!element || nbytes % item != 0)
          invalid_argument("alloc(" + std::to_string(nbytes) + ", " + py::str(static_cast<const py::handle&>(d)).cast<std::string>() +
                               "): not a whole number of elements of a bool, integer or float dtype",
                           "pass nbytes as a multiple of the dtype's itemsize, with a numeric dtype");
        PyResident r{b.backend, {}, *element, {static_cast<std::int64_t>(nbytes / item)}};
        py::gil_scoped_release release;
        r.buffer = b.backend.alloc(nbytes);
        return r;
      }, py::arg("nbytes"), py::arg("dtype") = py::str("uint8"),
         "A zeroed resident buffer of `nbytes` bytes, seen as a 1-D array of `dtype`.")
      .def("to_device", [](const PyBackend& b, const py::handle& array) {
        py::array a = py::module_::import("numpy").attr("ascontiguousarray")(array);
        PyResident r;
        r.backend = b.backend;
        if (const std::optional<dlpack::DataType> element = dlpack_dtype(a.dtype())) {
          r.dtype = *element;
          r.shape.assign(a.shape(), a.shape() + a.ndim());
        } else {
          r.shape = {static_cast<std::int64_t>(a.nbytes())};  // raw bytes
        }
        {
          py::gil_scoped_release release;
          r.buffer = b.backend.alloc(static_cast<std::uint64_t>(a.nbytes()));
        }
        r.upload(a, 0);
        return r;
      }, py::arg("array"), "A resident buffer holding a copy of `array` (its dtype and shape).")
      .def("from_dlpack", [](const PyBackend& b, const py::handle& tensor, bool read_only) {
        return import_dlpack(b.backend, tensor, read_only);
      }, py::arg("tensor"), py::arg("read_only") = false,
         "The memory of a DLPack-capable object (NumPy array, torch or CuPy tensor) as a resident "
         "buffer, without a copy: dispatches read and write the object's memory. Needs ABI 1.1 "
         "external memory (reference_cpu: CPU memory; cuda: the instance's device).")
      .def("dlpack_cache_info", &import_cache_info,
           "The import cache of DLPack objects bound straight to run_resident/run_resident_timed: "
           "{entries, hits, misses, stale, dropped, uncached, device_stream_waits, host_stream_waits}. An object is "
           "imported once and reused "
           "while it lives and views the same memory (docs/PYTHON.md, \"Zero copy\").")
      .def("clear_dlpack_cache", &clear_import_cache, "Release every cached import now.")
      .def("_run_resident", [](const PyBackend& b, const py::handle& program, const py::args& args,
                               const py::kwargs& kwargs) {
        ResidentArguments run = resident_arguments(b, program, args, kwargs, true, false);
        dispatch_after_producers(b, run);
      }, py::arg("program"), "run_resident's general binding (run_resident takes the calls it cannot).")
      .def("run_resident_async", [](const PyBackend& b, const py::handle& program, const py::args& args,
                                    const py::kwargs& kwargs) {
        ResidentArguments run = resident_arguments(b, program, args, kwargs, false);
        const host::Program compiled = run.program->compiled_for(b.backend);
        PyPending pending;
        pending.producers = std::move(run.producers);
        pending.capsules = std::move(run.capsules);
        pending.imported = std::move(run.imported);
        py::gil_scoped_release release;
        pending.pending = b.backend.dispatch_resident_async(compiled, run.bindings, run.config);
        return pending;
      }, py::arg("program"))
      .def("run_resident_timed", [](const PyBackend& b, const py::handle& program, const py::args& args,
                                    const py::kwargs& kwargs) {
        ResidentArguments run = resident_arguments(b, program, args, kwargs);
        const host::Program compiled = run.program->compiled_for(b.backend);
        Timing t;
        {
          py::gil_scoped_release release;
          t = b.backend.dispatch_resident_timed(compiled, run.bindings, run.config);
        }
        return timing_dict(t);
      }, py::arg("program"))
      // For benchmarks of the binding's own cost (bench/python_binding_overhead.py): `calls`
      // synchronous resident dispatches of `program` on ResidentBuffers straight from the C++ host
      // API (Backend::dispatch_resident, as vyre-bench P9 calls it; dispatch_resident_after
      // where `after_stream` is given), the GIL released; returns the nanoseconds they took.
      .def("_cpp_resident_loop", [](const PyBackend& b, const py::handle& program, const py::list& buffers,
                                    std::uint64_t calls, std::optional<std::uint64_t> after_stream) {
        const host::Program compiled = program.cast<std::shared_ptr<PyProgram>>()->compiled_for(b.backend);
        std::vector<host::Binding> bindings;
        for (const py::handle buffer : buffers) bindings.push_back(host::Binding::of(resident_arg(buffer).buffer));
        py::gil_scoped_release release;
        const auto start = std::chrono::steady_clock::now();
        for (std::uint64_t i = 0; i < calls; ++i) {
          if (after_stream)
            b.backend.dispatch_resident_after(compiled, bindings, VYRE_NATIVE_STREAM_CUDA, *after_stream);
          else
            b.backend.dispatch_resident(compiled, bindings);
        }
        return static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
      }, py::arg("program"), py::arg("buffers"), py::arg("calls"), py::arg("after_stream") = py::none())
      .def("sequence", [](const PyBackend& b, const py::list& prefix, const py::list& repeated,
                          std::uint64_t repeat_count, const py::list& reads) {
        host::Sequence seq;
        for (const py::handle step : prefix) seq.prefix.push_back(sequence_step(b.backend, step));
        for (const py::handle step : repeated) seq.repeated.push_back(sequence_step(b.backend, step));
        seq.repeat_count = repeat_count;
        std::vector<py::array> results;
        for (const py::handle read : reads) {
          const py::tuple t = read.cast<py::tuple>();
          if (t.size() < 3 || t.size() > 4)
            invalid_argument("a read is (buffer, dtype, count) or (buffer, dtype, count, offset)",
                             "pass tuples of that shape");
          const py::dtype d = py::dtype::from_args(t[1]);
          results.emplace_back(d, std::vector<py::ssize_t>{t[2].cast<py::ssize_t>()}, std::vector<py::ssize_t>{});
          seq.reads.push_back(host::ResidentRead{resident_arg(t[0]).buffer,
                                                 t.size() == 4 ? t[3].cast<std::uint64_t>() : 0,
                                                 writable_bytes(results.back())});
        }
        {
          py::gil_scoped_release release;
          b.backend.sequence(seq);
        }
        return results;
      }, py::arg("prefix") = py::list(), py::arg("repeated") = py::list(), py::arg("repeat_count") = 0,
         py::arg("reads") = py::list(),
         "Run the prefix steps once, the repeated steps repeat_count times, then the reads; each "
         "step is (program, buffers[, config]); each read (buffer, dtype, count[, offset]). "
         "Returns the arrays read.");

  // run_resident(program, *args, **kwargs): the fast entry (above), installed as a method
  // descriptor of the class; _run_resident is its general binding.
  static PyMethodDef run_resident_def{
      "run_resident", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&run_resident_fast)),
      METH_FASTCALL | METH_KEYWORDS,
      "run_resident(program, [config,] *buffers, **buffers): a synchronous resident dispatch; every "
      "non-workgroup buffer bound (by position in declaration order, or by name) to a ResidentBuffer, a "
      "DLPack object (imported without a copy, through the import cache) or, for read buffers, an array."};
  install_fast_method(backend, run_resident_def);
}

}  // namespace vyre::python
