// DLPack both ways, without a copy (docs/PYTHON.md, "Zero copy"):
//   - a resident buffer is a DLPack producer: __dlpack__ / __dlpack_device__ hand out its memory
//     (ABI 1.1 resident_export), so numpy/torch/cupy.from_dlpack(buffer) see the same bytes;
//   - any DLPack producer (NumPy array, torch or CuPy tensor) becomes a resident buffer through
//     import_dlpack (ABI 1.1 resident_import): backend.from_dlpack(x), or bound straight to a
//     resident dispatch.
// Capsules of DLPack 0.8 ("dltensor") and 1.0 ("dltensor_versioned") are read and written.
#include <Python.h>

#include <cstring>
#include <map>
#include <optional>

#include <vyre/error.hpp>

#include "bindings.hpp"

namespace vyre::python {

namespace {

using dlpack::DataType;

// ---- element types ---------------------------------------------------------------------------------

std::string describe(DataType t) {
  return "DLPack dtype (code " + std::to_string(t.code) + ", bits " + std::to_string(t.bits) + ", lanes " +
         std::to_string(t.lanes) + ")";
}

// ---- consuming: a producer's capsule, owned until the backend releases the memory -------------------

// The tensor a consumer took from a capsule; its destructor calls the producer's deleter (which,
// per the DLPack standard, may run on any thread and takes the GIL itself where it needs it).
class TakenTensor {
 public:
  TakenTensor(dlpack::ManagedTensor* legacy, dlpack::ManagedTensorVersioned* versioned)
      : legacy_(legacy), versioned_(versioned) {}
  TakenTensor(const TakenTensor&) = delete;
  TakenTensor& operator=(const TakenTensor&) = delete;
  ~TakenTensor() {
    if (versioned_ != nullptr && versioned_->deleter != nullptr) versioned_->deleter(versioned_);
    if (legacy_ != nullptr && legacy_->deleter != nullptr) legacy_->deleter(legacy_);
  }
  const dlpack::Tensor& tensor() const { return versioned_ ? versioned_->dl_tensor : legacy_->dl_tensor; }
  bool read_only() const { return versioned_ != nullptr && (versioned_->flags & dlpack::kFlagReadOnly) != 0; }

 private:
  dlpack::ManagedTensor* legacy_;
  dlpack::ManagedTensorVersioned* versioned_;
};

// Call obj.__dlpack__ asking for a 1.0 capsule; producers older than the max_version keyword get
// the plain call.
py::object capsule_of(const py::handle& object) {
  if (!py::hasattr(object, "__dlpack__"))
    invalid_argument("a " + py::str(py::type::of(object)).cast<std::string>() + " has no __dlpack__",
                     "pass a NumPy array, a torch or CuPy tensor, or another DLPack producer");
  try {
    return object.attr("__dlpack__")(py::arg("max_version") = py::make_tuple(dlpack::kVersion.major,
                                                                             dlpack::kVersion.minor));
  } catch (const py::error_already_set& e) {
    if (!e.matches(PyExc_TypeError)) throw;
  }
  return object.attr("__dlpack__")();
}

// Take ownership of the capsule's tensor (renaming the capsule "used_...", as the standard says).
std::shared_ptr<TakenTensor> take(const py::object& capsule) {
  PyObject* c = capsule.ptr();
  if (PyCapsule_IsValid(c, dlpack::kCapsuleVersioned)) {
    auto* t = static_cast<dlpack::ManagedTensorVersioned*>(PyCapsule_GetPointer(c, dlpack::kCapsuleVersioned));
    if (t->version.major != dlpack::kVersion.major)
      invalid_argument("the producer's DLPack capsule has version " + std::to_string(t->version.major) + "." +
                           std::to_string(t->version.minor) + "; vyre reads 0.8 and 1.x",
                       "ask the producer for a DLPack 1.x capsule (max_version=(1, 0))");
    if (PyCapsule_SetName(c, dlpack::kCapsuleVersionedUsed) != 0) throw py::error_already_set();
    return std::make_shared<TakenTensor>(nullptr, t);
  }
  if (PyCapsule_IsValid(c, dlpack::kCapsule)) {
    auto* t = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(c, dlpack::kCapsule));
    if (PyCapsule_SetName(c, dlpack::kCapsuleUsed) != 0) throw py::error_already_set();
    return std::make_shared<TakenTensor>(t, nullptr);
  }
  invalid_argument("__dlpack__ returned no unused DLPack capsule (\"dltensor\" or \"dltensor_versioned\")",
                   "pass a fresh DLPack producer; a capsule can be consumed once");
}

std::uint64_t element_count(const dlpack::Tensor& t) {
  std::uint64_t n = 1;
  for (std::int32_t d = 0; d < t.ndim; ++d) {
    if (t.shape[d] < 0) invalid_argument("the tensor has a negative extent", "pass a valid tensor");
    n *= static_cast<std::uint64_t>(t.shape[d]);
  }
  return n;
}

// Compact row-major: null strides, or strides equal to those (extents of 1 may have any stride).
bool compact(const dlpack::Tensor& t) {
  if (t.strides == nullptr) return true;
  std::int64_t expected = 1;
  for (std::int32_t d = t.ndim - 1; d >= 0; --d) {
    if (t.shape[d] != 1 && t.strides[d] != expected) return false;
    expected *= t.shape[d];
  }
  return true;
}

struct Placement {
  std::uint32_t kind;
  std::uint64_t address;
  std::uint64_t byte_len;
};

Placement placement(const dlpack::Tensor& t) {
  if (t.dtype.lanes != 1 || t.dtype.bits == 0 || t.dtype.bits % 8 != 0)
    invalid_argument("the tensor's " + describe(t.dtype) + " is not whole bytes per element",
                     "pass a tensor of a bool, integer or float dtype");
  if (t.ndim < 0 || (t.ndim > 0 && t.shape == nullptr))
    invalid_argument("the tensor has no valid shape", "pass a valid tensor");
  if (!compact(t))
    invalid_argument("the tensor is not contiguous (strided views cannot be bound without a copy)",
                     "pass x.contiguous() (torch), cupy.ascontiguousarray(x) or numpy.ascontiguousarray(x)");
  Placement p{};
  switch (t.device.device_type) {
    case dlpack::kCPU:
    case dlpack::kCUDAHost: p.kind = VYRE_MEMORY_HOST; break;
    case dlpack::kCUDA:
    case dlpack::kCUDAManaged: p.kind = VYRE_MEMORY_DEVICE; break;
    default:
      fail(VYRE_ERR_UNSUPPORTED,
           "the tensor is on DLPack device type " + std::to_string(t.device.device_type) +
               "; vyre imports CPU and CUDA memory",
           "move the tensor to the CPU or to a CUDA device first");
  }
  p.address = reinterpret_cast<std::uintptr_t>(t.data) + t.byte_offset;
  p.byte_len = element_count(t) * (t.dtype.bits / 8);
  return p;
}

// vyre's streams are not ordered after the producer's: wait for what torch or CuPy queued on
// their current stream (the DLPack stream argument cannot name a vyre stream). A stream
// synchronize, never a device-wide one; once per framework and device in a dispatch.
Framework framework_of(const py::handle& object) {
  const std::string module = py::str(py::type::of(object).attr("__module__"));
  if (module.rfind("torch", 0) == 0) return Framework::Torch;
  if (module.rfind("cupy", 0) == 0) return Framework::CuPy;
  return Framework::Other;
}

bool on_cuda(const dlpack::Tensor& t) {
  return t.device.device_type == dlpack::kCUDA || t.device.device_type == dlpack::kCUDAManaged;
}

// The frameworks' stream functions, looked up once (under the GIL, without a function-local static
// guard: an import may release the GIL, and a thread waiting on the guard would hold it). torch:
// the current stream's raw handle is one C call (torch._C._cuda_getCurrentRawStream, None where
// this torch lacks it); the torch.cuda.Stream object for a handle (whose construction costs
// microseconds) is made once per handle.
struct TorchStreams {
  py::object current;  // torch.cuda.current_stream
  py::object raw;      // torch._C._cuda_getCurrentRawStream, or None
  py::dict by_handle;  // (device, raw handle) -> torch.cuda.Stream
};

TorchStreams& torch_streams() {
  static TorchStreams* streams = nullptr;  // never destroyed: used until exit
  if (streams == nullptr) {
    const py::module_ torch = py::module_::import("torch");
    const py::object c = torch.attr("_C");
    auto* made = new TorchStreams{torch.attr("cuda").attr("current_stream"),
                                  py::hasattr(c, "_cuda_getCurrentRawStream") ? c.attr("_cuda_getCurrentRawStream")
                                                                              : py::object(py::none()),
                                  py::dict()};
    if (streams == nullptr) streams = made;  // another thread may have come first while importing
    else delete made;
  }
  return *streams;
}

const py::object& cupy_current_stream() {
  static py::object* function = nullptr;  // never destroyed: used until exit
  if (function == nullptr) {
    auto* made = new py::object(py::module_::import("cupy").attr("cuda").attr("get_current_stream"));
    if (function == nullptr) function = made;
    else delete made;
  }
  return *function;
}

// torch's current stream of `device` as a CUstream handle (0: the legacy default stream).
std::uint64_t torch_stream_handle(int device) {
  const TorchStreams& torch = torch_streams();
  if (torch.raw.is_none()) return torch.current(device).attr("cuda_stream").cast<std::uint64_t>();
  // One vectorcall per dispatch (no argument tuple).
  const auto index = py::reinterpret_steal<py::object>(PyLong_FromLong(device));
  if (!index) throw py::error_already_set();
  PyObject* const argument = index.ptr();
  const auto handle = py::reinterpret_steal<py::object>(PyObject_Vectorcall(torch.raw.ptr(), &argument, 1, nullptr));
  if (!handle) throw py::error_already_set();
  if (PyLong_CheckExact(handle.ptr())) {
    const unsigned long long value = PyLong_AsUnsignedLongLong(handle.ptr());
    if (value == static_cast<unsigned long long>(-1) && PyErr_Occurred() != nullptr) throw py::error_already_set();
    return static_cast<std::uint64_t>(value);
  }
  return handle.cast<std::uint64_t>();
}

std::uint64_t cupy_stream_handle() { return cupy_current_stream()().attr("ptr").cast<std::uint64_t>(); }

void wait_for_torch(int device) {
  TorchStreams& torch = torch_streams();
  if (torch.raw.is_none()) {
    torch.current(device).attr("synchronize")();
    return;
  }
  const py::tuple key = py::make_tuple(device, torch.raw(device));
  py::object stream = py::reinterpret_borrow<py::object>(PyDict_GetItemWithError(torch.by_handle.ptr(), key.ptr()));
  if (!stream) {
    if (PyErr_Occurred() != nullptr) throw py::error_already_set();
    stream = torch.current(device);
    torch.by_handle[key] = stream;
  }
  stream.attr("synchronize")();
}

void wait_for_cupy() { cupy_current_stream()().attr("synchronize")(); }

// ---- producing: a resident buffer's memory as a capsule ----------------------------------------------

// What a capsule's tensor points into; freed by the tensor's deleter (from any thread, no GIL).
struct ExportContext {
  host::ResidentBuffer buffer;               // the handle the view keeps
  std::shared_ptr<std::atomic<int>> views;  // the buffer's count of live views
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
  dlpack::ManagedTensor legacy{};
  dlpack::ManagedTensorVersioned versioned{};

  ~ExportContext() { views->fetch_sub(1); }
};

void delete_legacy(dlpack::ManagedTensor* self) { delete static_cast<ExportContext*>(self->manager_ctx); }
void delete_versioned(dlpack::ManagedTensorVersioned* self) {
  delete static_cast<ExportContext*>(self->manager_ctx);
}

// An unconsumed capsule deletes its tensor; a consumed one ("used_...") is the consumer's.
void capsule_destructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, dlpack::kCapsuleVersioned)) {
    auto* t = static_cast<dlpack::ManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, dlpack::kCapsuleVersioned));
    t->deleter(t);
  } else if (PyCapsule_IsValid(capsule, dlpack::kCapsule)) {
    auto* t = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule, dlpack::kCapsule));
    t->deleter(t);
  }
}

host::ExportedMemory exported(const PyResident& r) {
  py::gil_scoped_release release;  // waits for earlier work on the buffer
  return r.backend.export_memory(r.buffer);
}

// The shape the buffer is seen with, where it covers the bytes; else 1-D.
std::vector<std::int64_t> view_shape(const PyResident& r, std::uint64_t byte_len) {
  const std::uint64_t item = r.dtype.bits / 8;
  std::uint64_t n = 1;
  for (std::int64_t extent : r.shape) n *= static_cast<std::uint64_t>(extent);
  if (!r.shape.empty() && n * item == byte_len) return r.shape;
  return {static_cast<std::int64_t>(byte_len / item)};
}

// __dlpack__(stream=None, max_version=None, dl_device=None, copy=None). `stream` needs nothing: the
// export returns after earlier work on the buffer finished.
py::object dlpack_capsule(const PyResident& r, const py::object& /*stream*/, const py::object& max_version,
                          const py::object& dl_device, const py::object& copy) {
  if (!copy.is_none() && copy.cast<bool>())
    throw py::buffer_error("vyre resident buffers are exported without a copy (copy=True asked for one); "
                           "Fix: download() the buffer for a copy");
  const host::ExportedMemory memory = exported(r);
  if (!dl_device.is_none()) {
    const auto device = dl_device.cast<std::pair<int, int>>();
    if (device.first != memory.dlpack_device_type || device.second != memory.device_id)
      throw py::buffer_error("the buffer lives on DLPack device (" + std::to_string(memory.dlpack_device_type) +
                             ", " + std::to_string(memory.device_id) +
                             "), not the one asked for; Fix: download() it to move it");
  }
  const bool versioned = !max_version.is_none() && max_version.cast<py::tuple>()[0].cast<int>() >= 1;

  auto context = std::make_unique<ExportContext>();
  context->buffer = r.buffer;
  context->views = r.views;
  context->shape = view_shape(r, memory.byte_len);
  context->strides.assign(context->shape.size(), 1);
  for (std::size_t d = context->shape.size(); d-- > 1;)
    context->strides[d - 1] = context->strides[d] * context->shape[d];
  dlpack::Tensor t{};
  t.data = reinterpret_cast<void*>(static_cast<std::uintptr_t>(memory.address));
  t.device = {memory.dlpack_device_type, memory.device_id};
  t.ndim = static_cast<std::int32_t>(context->shape.size());
  t.dtype = r.dtype;
  t.shape = context->shape.data();
  t.strides = context->strides.data();
  t.byte_offset = 0;

  void* pointer = nullptr;
  const char* name = nullptr;
  if (versioned) {
    context->versioned = {dlpack::kVersion, context.get(), &delete_versioned,
                          memory.read_only ? dlpack::kFlagReadOnly : 0, t};
    pointer = &context->versioned;
    name = dlpack::kCapsuleVersioned;
  } else {
    context->legacy = {t, context.get(), &delete_legacy};
    pointer = &context->legacy;
    name = dlpack::kCapsule;
  }
  PyObject* capsule = PyCapsule_New(pointer, name, &capsule_destructor);
  if (capsule == nullptr) throw py::error_already_set();
  r.views->fetch_add(1);
  context.release();  // the capsule's, then its consumer's
  return py::reinterpret_steal<py::object>(capsule);
}

}  // namespace

std::optional<DataType> dlpack_dtype(const py::dtype& dtype) {
  const auto bits = static_cast<std::uint8_t>(dtype.itemsize() * 8);
  switch (dtype.kind()) {
    case 'b': return DataType{dlpack::kBool, 8, 1};
    case 'i': return DataType{dlpack::kInt, bits, 1};
    case 'u': return DataType{dlpack::kUInt, bits, 1};
    case 'f': return DataType{dlpack::kFloat, bits, 1};
    default: return std::nullopt;
  }
}

py::dtype numpy_dtype(DataType t) {
  const std::string bits = std::to_string(t.bits);
  switch (t.code) {
    case dlpack::kBool: return py::dtype("bool");
    case dlpack::kInt: return py::dtype("int" + bits);
    case dlpack::kUInt: return py::dtype("uint" + bits);
    case dlpack::kFloat: return py::dtype("float" + bits);
    case dlpack::kBfloat: return py::dtype("uint16");
    default: return py::dtype("uint" + bits);
  }
}

namespace {

// The import of a taken tensor. `release_with_buffer`: the producer's deleter runs when the backend
// releases the memory (the DLPack way); otherwise the caller holds the capsule while it uses it.
PyResident import_taken(const host::Backend& backend, const std::shared_ptr<TakenTensor>& taken,
                        const Placement& where, bool read_only, bool release_with_buffer) {
  const dlpack::Tensor& t = taken->tensor();
  PyResident r;
  r.backend = backend;
  r.dtype = t.dtype;
  r.shape.assign(t.shape, t.shape + t.ndim);
  host::ExternalMemory memory;
  memory.kind = where.kind;
  memory.address = where.address;
  memory.byte_len = where.byte_len;
  memory.read_only = read_only || taken->read_only();
  if (release_with_buffer)
    memory.release = [held = taken]() mutable { held.reset(); };  // the producer's deleter, exactly once
  py::gil_scoped_release release;
  r.buffer = backend.import_memory(std::move(memory));
  return r;
}

// ---- the import cache -------------------------------------------------------------------------------
//
// A DLPack object bound straight to resident dispatches again and again (the same torch tensor,
// NumPy array or CuPy array each call) is imported once per backend instance and read-only flag.
// An entry is used only when
//   - its object is the one bound (a weak reference to it, whose callback drops the entry when the
//     object dies: an entry never outlives its object, so memory that torch frees and reuses for a
//     new tensor is never reached through an old import), and
//   - the object still views the same memory: its fingerprint (address, byte length, dtype object,
//     C-contiguity, writability), read cheaply from the object itself without __dlpack__, equals
//     the one taken at the import (set_, resize_, `.data =` or an in-place dtype change is a miss
//     and a fresh import).
// The entry does not hold the producer's capsule (a DLPack tensor of torch holds the Python tensor
// alive, which would keep the entry's own weak reference from ever firing): during each dispatch
// the bound object itself, held by the call, keeps the memory it views alive. Objects without a
// cheap fingerprint (anything but NumPy arrays, torch tensors and objects with
// __cuda_array_interface__ / __array_interface__) or without weak references are imported per call.

struct Fingerprint {
  std::uint64_t address = 0;
  std::uint64_t byte_len = 0;
  py::object type;  // the dtype object (NumPy descr, torch.dtype) or the interned typestr: by identity
  bool contiguous = false;
  bool writable = false;

  bool matches(const Fingerprint& o) const {
    return address == o.address && byte_len == o.byte_len && type.is(o.type) && contiguous == o.contiguous &&
           writable == o.writable;
  }
};

enum class Kind : std::uint8_t { None, Torch, Interface };

PyObject* interned(const char* name) {
  PyObject* s = PyUnicode_InternFromString(name);
  if (s == nullptr) throw py::error_already_set();
  return s;  // never released: used until exit
}

Kind kind_of(const py::handle& object) {
  // Held so that a type's address is never reused by another type while it is in the map.
  static auto* kinds = new std::map<PyTypeObject*, std::pair<py::object, Kind>>();  // never destroyed
  PyTypeObject* type = Py_TYPE(object.ptr());
  if (const auto found = kinds->find(type); found != kinds->end()) return found->second.second;
  const py::handle t(reinterpret_cast<PyObject*>(type));
  Kind kind = Kind::None;
  if (framework_of(object) == Framework::Torch && py::hasattr(t, "data_ptr") && py::hasattr(t, "is_contiguous"))
    kind = Kind::Torch;
  else if (py::hasattr(t, "__cuda_array_interface__") || py::hasattr(t, "__array_interface__"))
    kind = Kind::Interface;
  kinds->emplace(type, std::make_pair(py::reinterpret_borrow<py::object>(t), kind));
  return kind;
}

std::optional<std::uint64_t> as_u64(PyObject* value) {
  if (value == nullptr || !PyLong_Check(value)) return std::nullopt;
  const unsigned long long v = PyLong_AsUnsignedLongLong(value);
  if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred() != nullptr) return std::nullopt;
  return static_cast<std::uint64_t>(v);
}

std::optional<Fingerprint> numpy_fingerprint(const py::handle& object) {
  const auto a = py::reinterpret_borrow<py::array>(object);
  Fingerprint f;
  f.address = reinterpret_cast<std::uintptr_t>(a.data());
  f.byte_len = static_cast<std::uint64_t>(a.nbytes());
  f.type = a.dtype();
  f.contiguous = (a.flags() & py::array::c_style) != 0;
  f.writable = a.writeable();
  return f;
}

std::optional<Fingerprint> torch_fingerprint(const py::handle& object) {
  static PyObject* const data_ptr = interned("data_ptr");
  static PyObject* const nbytes = interned("nbytes");
  static PyObject* const dtype = interned("dtype");
  static PyObject* const is_contiguous = interned("is_contiguous");
  PyObject* o = object.ptr();
  // One read after another: none runs with an exception set by the one before.
  Fingerprint f;
  const auto address = py::reinterpret_steal<py::object>(PyObject_CallMethodNoArgs(o, data_ptr));
  const std::optional<std::uint64_t> a = as_u64(address.ptr());
  const auto bytes = a ? py::reinterpret_steal<py::object>(PyObject_GetAttr(o, nbytes)) : py::object();
  const std::optional<std::uint64_t> n = as_u64(bytes.ptr());
  if (n) f.type = py::reinterpret_steal<py::object>(PyObject_GetAttr(o, dtype));
  const auto compact = f.type ? py::reinterpret_steal<py::object>(PyObject_CallMethodNoArgs(o, is_contiguous))
                              : py::object();
  if (!compact) {
    PyErr_Clear();  // no fingerprint (a meta tensor, a broken subclass): a plain import
    return std::nullopt;
  }
  f.address = *a;
  f.byte_len = *n;
  f.contiguous = compact.ptr() == Py_True;
  f.writable = true;
  return f;
}

// __cuda_array_interface__ (CuPy, Numba) or __array_interface__: data (address, read-only), shape,
// typestr, strides (None: C order), offset; no mask. Read with the C API: it runs on every call.
std::optional<Fingerprint> interface_fingerprint(const py::handle& object) {
  static PyObject* const cuda = interned("__cuda_array_interface__");
  static PyObject* const host = interned("__array_interface__");
  auto d = py::reinterpret_steal<py::object>(PyObject_GetAttr(object.ptr(), cuda));
  if (!d) {
    PyErr_Clear();
    d = py::reinterpret_steal<py::object>(PyObject_GetAttr(object.ptr(), host));
  }
  const auto fail = []() -> std::optional<Fingerprint> {
    PyErr_Clear();  // a malformed interface: no fingerprint, a plain import
    return std::nullopt;
  };
  if (!d || !PyDict_Check(d.ptr())) return fail();
  PyObject* const i = d.ptr();
  PyObject* const mask = PyDict_GetItemString(i, "mask");
  PyObject* const data = PyDict_GetItemString(i, "data");
  PyObject* const shape = PyDict_GetItemString(i, "shape");
  PyObject* const typestr = PyDict_GetItemString(i, "typestr");
  PyObject* const strides = PyDict_GetItemString(i, "strides");
  PyObject* const offset = PyDict_GetItemString(i, "offset");
  if ((mask != nullptr && mask != Py_None) || data == nullptr || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2 ||
      shape == nullptr || !PyTuple_Check(shape) || typestr == nullptr || !PyUnicode_Check(typestr))
    return fail();
  Py_ssize_t length = 0;
  const char* text = PyUnicode_AsUTF8AndSize(typestr, &length);
  if (text == nullptr || length < 3) return fail();
  std::uint64_t item = 0;
  for (Py_ssize_t k = 2; k < length; ++k) {
    if (text[k] < '0' || text[k] > '9') return fail();
    item = item * 10 + static_cast<std::uint64_t>(text[k] - '0');
  }
  const std::optional<std::uint64_t> address = as_u64(PyTuple_GET_ITEM(data, 0));
  const std::optional<std::uint64_t> skip = offset == nullptr || offset == Py_None ? std::optional<std::uint64_t>(0)
                                                                                  : as_u64(offset);
  const int read_only = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1));
  if (!address || !skip || read_only < 0) return fail();
  Fingerprint f;
  f.address = *address + *skip;
  f.writable = read_only == 0;
  PyObject* name = Py_NewRef(typestr);
  PyUnicode_InternInPlace(&name);  // equal typestrs: one object, compared by identity
  f.type = py::reinterpret_steal<py::object>(name);
  const Py_ssize_t rank = PyTuple_GET_SIZE(shape);
  const bool strided = strides != nullptr && strides != Py_None;
  if (strided && (!PyTuple_Check(strides) || PyTuple_GET_SIZE(strides) != rank)) return fail();
  std::uint64_t n = 1;
  std::uint64_t expected = item;
  f.contiguous = true;
  for (Py_ssize_t k = rank; k-- > 0;) {
    const std::optional<std::uint64_t> extent = as_u64(PyTuple_GET_ITEM(shape, k));
    if (!extent) return fail();
    n *= *extent;
    if (strided && *extent != 1) {
      const long long stride = PyLong_AsLongLong(PyTuple_GET_ITEM(strides, k));
      if (stride == -1 && PyErr_Occurred() != nullptr) return fail();
      if (stride != static_cast<long long>(expected)) f.contiguous = false;
    }
    expected *= *extent;
  }
  f.byte_len = n * item;
  return f;
}

std::optional<Fingerprint> fingerprint(const py::handle& object) {
  if (py::isinstance<py::array>(object)) return numpy_fingerprint(object);
  switch (kind_of(object)) {
    case Kind::Torch: return torch_fingerprint(object);
    case Kind::Interface: return interface_fingerprint(object);
    case Kind::None: break;
  }
  return std::nullopt;
}

}  // namespace

struct ImportCache {
  struct Entry {
    py::object weakref;  // to the bound object; its callback drops the entry
    Fingerprint print;
    PyResident resident;
    Framework framework = Framework::Other;
    int cuda_device = -1;  // the device of CUDA memory; -1 for host memory
  };
  using Key = std::pair<PyObject*, bool>;  // (the object, imported read-only)
  std::map<Key, Entry> entries;
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t stale = 0;    // entries dropped because their object views other memory now
  std::uint64_t dropped = 0;  // entries dropped because their object died
  std::uint64_t uncached = 0; // imports of objects the cache cannot track (imported per call)
  std::uint64_t device_stream_waits = 0;  // run_resident calls ordered after a producer on the device
  std::uint64_t host_stream_waits = 0;    // ... and after a host synchronize of the producers' streams
};

std::shared_ptr<ImportCache> make_import_cache() { return std::make_shared<ImportCache>(); }

void ProducerWaits::add(Framework framework, int device) {
  if (framework == Framework::Other) return;
  const std::pair<Framework, int> wait{framework, device};
  for (const Wait& w : list())
    if (w == wait) return;
  if (more_.empty() && count_ < few_.size()) {
    few_[count_++] = wait;
    return;
  }
  if (more_.empty()) more_.assign(few_.begin(), few_.end());
  more_.push_back(wait);
}

void ProducerWaits::wait() const {
  for (const auto& [framework, device] : list()) {
    if (framework == Framework::Torch) wait_for_torch(device);
    if (framework == Framework::CuPy) wait_for_cupy();
  }
}

std::optional<std::uint64_t> ProducerWaits::single_stream() const {
  if (list().size() != 1) return std::nullopt;
  const auto [framework, device] = list().front();
  if (framework == Framework::Torch) return torch_stream_handle(device);
  if (framework == Framework::CuPy) return cupy_stream_handle();
  return std::nullopt;
}

PyResident import_dlpack(const host::Backend& backend, const py::handle& object, bool read_only) {
  std::shared_ptr<TakenTensor> taken = take(capsule_of(object));
  const dlpack::Tensor& t = taken->tensor();
  const Placement where = placement(t);
  ProducerWaits waits;
  if (on_cuda(t)) waits.add(framework_of(object), t.device.device_id);
  waits.wait();
  return import_taken(backend, taken, where, read_only, true);
}

std::optional<CachedImport> cached_tensor(const PyBackend& backend, const py::handle& object, bool read_only,
                                          ProducerWaits& waits) {
  ImportCache& cache = *backend.imports;
  const auto found = cache.entries.find(ImportCache::Key{object.ptr(), read_only});
  if (found == cache.entries.end()) return std::nullopt;
  ImportCache::Entry& entry = found->second;
  const std::optional<Fingerprint> now = fingerprint(object);
  if (now && PyWeakref_GetObject(entry.weakref.ptr()) == object.ptr() && entry.print.matches(*now)) {
    ++cache.hits;
    if (entry.cuda_device >= 0) waits.add(entry.framework, entry.cuda_device);
    return CachedImport{entry.resident.buffer, entry.resident.dtype};
  }
  ++cache.stale;
  const ImportCache::Entry gone = std::move(entry);  // released after the map no longer has it
  cache.entries.erase(found);
  return std::nullopt;
}

BoundTensor bind_tensor(const PyBackend& backend, const py::handle& object, bool read_only, bool cached,
                        ProducerWaits& waits) {
  if (cached)
    if (std::optional<CachedImport> hit = cached_tensor(backend, object, read_only, waits))
      return BoundTensor{py::reinterpret_borrow<py::object>(object), nullptr,
                         PyResident{backend.backend, std::move(hit->buffer), hit->dtype, {}}};
  BoundTensor out;
  out.producer = py::reinterpret_borrow<py::object>(object);
  ImportCache& cache = *backend.imports;
  const ImportCache::Key key{object.ptr(), read_only};
  std::optional<Fingerprint> now = cached ? fingerprint(object) : std::nullopt;

  std::shared_ptr<TakenTensor> taken = take(capsule_of(object));
  const dlpack::Tensor& t = taken->tensor();
  const Placement where = placement(t);
  const Framework framework = on_cuda(t) ? framework_of(object) : Framework::Other;
  const int cuda_device = on_cuda(t) ? t.device.device_id : -1;
  if (cuda_device >= 0) waits.add(framework, cuda_device);
  // Cached only where the fingerprint names exactly the memory DLPack handed over.
  const bool keep = now && now->address == where.address && now->byte_len == where.byte_len && now->contiguous;
  py::object weakref;
  if (keep) {
    std::weak_ptr<ImportCache> owner = backend.imports;
    const py::cpp_function dropped([owner, key](const py::handle& ref) {
      const std::shared_ptr<ImportCache> c = owner.lock();
      if (!c) return;
      const auto found = c->entries.find(key);
      if (found == c->entries.end() || !found->second.weakref.is(ref)) return;
      ++c->dropped;
      const ImportCache::Entry gone = std::move(found->second);  // its import is released last
      c->entries.erase(found);
    });
    weakref = py::reinterpret_steal<py::object>(PyWeakref_NewRef(object.ptr(), dropped.ptr()));
    if (!weakref) PyErr_Clear();  // no weak references to it: imported per call
  }
  out.capsule = taken;
  out.resident = import_taken(backend.backend, taken, where, read_only, !weakref);
  if (!weakref) {
    ++cache.uncached;
    return out;
  }
  ++cache.misses;
  cache.entries[key] = ImportCache::Entry{weakref, std::move(*now), out.resident, framework, cuda_device};
  return out;
}

py::dict import_cache_info(const PyBackend& backend) {
  const ImportCache& c = *backend.imports;
  py::dict d;
  d["entries"] = c.entries.size();
  d["hits"] = c.hits;
  d["misses"] = c.misses;
  d["stale"] = c.stale;
  d["dropped"] = c.dropped;
  d["uncached"] = c.uncached;
  d["device_stream_waits"] = c.device_stream_waits;
  d["host_stream_waits"] = c.host_stream_waits;
  return d;
}

void count_producer_wait(const PyBackend& backend, bool on_device) {
  ++(on_device ? backend.imports->device_stream_waits : backend.imports->host_stream_waits);
}

void clear_import_cache(const PyBackend& backend) {
  std::map<ImportCache::Key, ImportCache::Entry> gone;
  gone.swap(backend.imports->entries);
}

void require_element_fits(const BufferDecl& decl, DataType dtype) {
  const Type t = decl.element;
  const bool integer = dtype.code == dlpack::kInt || dtype.code == dlpack::kUInt;
  const bool fits = dtype.lanes == 1 && dtype.bits == byte_size(t) * 8 &&
                    (t == Type::BF16 ? dtype.code == dlpack::kBfloat || integer
                     : is_float(t)   ? dtype.code == dlpack::kFloat
                                     : integer);
  if (fits) return;
  invalid_argument("buffer '" + decl.name + "' holds " + std::string(type_name(t)) + " (" +
                       std::to_string(byte_size(t)) + " bytes each) but the tensor's elements are " +
                       py::str(static_cast<const py::handle&>(numpy_dtype(dtype))).cast<std::string>() +
                       " (" + describe(dtype) + ")",
                   "pass a tensor of the buffer's type, or reinterpret its bits first "
                   "(torch: x.view(torch.int32); NumPy/CuPy: x.view(numpy.uint32))");
}

void bind_dlpack(py::module_& m) {
  auto resident = py::reinterpret_borrow<py::class_<PyResident>>(m.attr("ResidentBuffer"));
  resident
      .def("__dlpack__", &dlpack_capsule, py::kw_only(), py::arg("stream") = py::none(),
           py::arg("max_version") = py::none(), py::arg("dl_device") = py::none(), py::arg("copy") = py::none(),
           "The buffer's memory as a DLPack capsule (no copy; ABI 1.1 resident_export). Earlier work on "
           "the buffer has finished when it returns, so `stream` needs no wait. free() is refused while a "
           "tensor made from it is alive.")
      .def("__dlpack_device__", [](const PyResident& r) {
        const host::ExportedMemory memory = exported(r);
        return py::make_tuple(memory.dlpack_device_type, memory.device_id);
      }, "(DLPack device type, device id) of the buffer's memory.");
}

}  // namespace vyre::python
