// The pieces of the _vyre extension module (the C++ half of the Python package `vyre`), one
// bind_* function per concept, and the few types they share. docs/PYTHON.md describes the API.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "dlpack.hpp"
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
void bind_dlpack(py::module_& m);
void bind_group(py::module_& m);

// A program as Python holds it: the IR (immutable once made) and what dispatching needs, computed
// once: the host input and output buffers' names, and each backend instance's compiled handle.
// Thread-safe.
class PyProgram {
 public:
  explicit PyProgram(vyre::Program program);

  const vyre::Program& ir() const { return *ir_; }
  const std::vector<std::size_t>& inputs() const { return inputs_; }    // buffer indices
  const std::vector<std::size_t>& outputs() const { return outputs_; }  // buffer indices
  // The non-workgroup buffers (what a resident dispatch binds), in declaration order.
  const std::vector<std::size_t>& bound() const { return bound_; }
  // Whether one of those is named "program" (run_resident's own parameter: such a program's
  // keywords take the general path, which reports the clash as pybind11 does).
  bool binds_program_name() const { return binds_program_name_; }
  // The compiled handle of this program on `backend` (compiled on first use).
  host::Program compiled_for(const host::Backend& backend) const;

 private:
  std::shared_ptr<const vyre::Program> ir_;
  std::vector<std::size_t> inputs_;
  std::vector<std::size_t> outputs_;
  std::vector<std::size_t> bound_;
  bool binds_program_name_ = false;
  mutable std::mutex mutex_;
  // Never shrinks; a deque, so that `last_` may point into it while it grows.
  mutable std::deque<std::pair<vyre_backend*, host::Program>> compiled_;
  mutable std::atomic<const std::pair<vyre_backend*, host::Program>*> last_{nullptr};  // the last one found
};

// The DLPack objects bound straight to resident dispatches of one backend instance, imported once
// each while they live and view the same memory (dlpack.cpp, "the import cache").
struct ImportCache;
std::shared_ptr<ImportCache> make_import_cache();

// A backend instance as Python holds it.
struct PyBackend {
  host::Backend backend;
  std::shared_ptr<ImportCache> imports = make_import_cache();
};

// A resident buffer as Python holds it: the handle, the element type and shape it is seen with
// (download's default dtype, and the tensor DLPack consumers see: from to_device's array, the
// imported tensor, or alloc's dtype; 1-D unless it came from an array), and how many DLPack views
// of it are alive (free() is refused while any is: their memory would go). Copies share the buffer.
struct PyResident {
  host::Backend backend;
  host::ResidentBuffer buffer;
  dlpack::DataType dtype{dlpack::kUInt, 8, 1};
  std::vector<std::int64_t> shape;
  std::shared_ptr<std::atomic<int>> views = std::make_shared<std::atomic<int>>(0);

  std::uint64_t nbytes() const { return buffer.byte_len(); }
  void upload(const py::handle& value, std::uint64_t offset) const;
  py::array download(const py::object& dtype, std::optional<std::uint64_t> count, std::uint64_t offset) const;
  void free();
};

// The buffer's element type for a NumPy dtype (bool, [u]int8..64, float16..64; others: none), and
// back (bfloat16 as uint16, the package's bf16 convention).
std::optional<dlpack::DataType> dlpack_dtype(const py::dtype& dtype);
py::dtype numpy_dtype(dlpack::DataType dtype);

// Wrap a DLPack-capable object's memory (a NumPy array, a torch or CuPy tensor: anything with
// __dlpack__) as a resident buffer of `backend` without a copy (ABI 1.1 external memory): it
// must be compact row-major on a device the backend takes (CPU memory on CPU backends, the
// instance's CUDA device on cuda). The object stays alive until the backend releases the memory.
// For CUDA tensors of torch and CuPy the producer's current stream is synchronized first (vyre's
// streams are not ordered after it); for others that is the caller's job. Thread-safe; takes the GIL.
PyResident import_dlpack(const host::Backend& backend, const py::handle& object, bool read_only);

// Who made a DLPack object: torch and CuPy CUDA tensors are waited for (their current stream).
enum class Framework : std::uint8_t { Other, Torch, CuPy };

// The producers' streams a resident dispatch waits for before it is queued: one stream synchronize
// per framework and device (vyre's streams are not ordered after theirs), however many of their
// tensors are bound. wait() needs the GIL.
class ProducerWaits {
 public:
  void add(Framework framework, int device);
  void wait() const;
  // Where exactly one producer stream is waited for: its CUstream handle (torch's or CuPy's current
  // stream), for a wait on the device instead (Backend::dispatch_resident_after); else none.
  std::optional<std::uint64_t> single_stream() const;
  bool any() const { return !list().empty(); }

 private:
  using Wait = std::pair<Framework, int>;
  std::span<const Wait> list() const {
    return more_.empty() ? std::span<const Wait>(few_.data(), count_) : std::span<const Wait>(more_);
  }
  std::array<Wait, 4> few_{};  // no allocation for up to four producer streams
  std::size_t count_ = 0;
  std::vector<Wait> more_;     // all of them, once there are more

};

// A DLPack object bound to one resident dispatch without a copy: its import (from the backend's
// import cache, or fresh) and what keeps the memory alive while the dispatch uses it: the object
// itself and, for a fresh import, the producer's capsule. `cached` false: a fresh import that is
// not kept. The producer's stream is added to `waits`.
struct BoundTensor {
  py::object producer;
  std::shared_ptr<void> capsule;
  PyResident resident;
};
BoundTensor bind_tensor(const PyBackend& backend, const py::handle& object, bool read_only, bool cached,
                        ProducerWaits& waits);
// Only the cache: the import of `object` where its entry still fits (a stale one is dropped), else
// none; the producer's stream is added to `waits`. The caller holds `object` during the dispatch
// (its memory stays alive) and binds the buffer (a copy of the handle keeps the import alive even
// when the cache drops the entry meanwhile).
struct CachedImport {
  host::ResidentBuffer buffer;
  dlpack::DataType dtype;
};
std::optional<CachedImport> cached_tensor(const PyBackend& backend, const py::handle& object, bool read_only,
                                          ProducerWaits& waits);
// {entries, hits, misses, stale, dropped, uncached, device_stream_waits, host_stream_waits} of the
// backend's import cache; and emptying it (the counts stay).
py::dict import_cache_info(const PyBackend& backend);
// Count one run_resident ordered after producers' streams on the device or on the host. GIL held.
void count_producer_wait(const PyBackend& backend, bool on_device);
void clear_import_cache(const PyBackend& backend);

// Whether elements of `dtype` may fill buffer `decl` as they are: the same size, floats for float
// buffers (bf16: bfloat16 or its 16-bit integer bits), integers for integer and bool (4-byte word)
// buffers; signedness may differ (torch has no uint32: an int32 tensor carries u32 bits). Throws
// invalid_argument otherwise, naming both.
void require_element_fits(const BufferDecl& decl, dlpack::DataType dtype);

// An asynchronous dispatch: the host outputs it writes (none for resident work) and the memory it
// imported for the call stay alive here until the work finished. Destroying it waits for the work.
struct PyPending {
  std::vector<py::array> outputs;      // declared first, destroyed last:
  std::vector<py::object> producers;   // (DLPack objects bound to a resident dispatch,
  std::vector<std::shared_ptr<void>> capsules;  // their capsules
  std::vector<PyResident> imported;    // and their imports)
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

// Resident and group dispatch: the object bound to each non-workgroup buffer of `ir`, in
// declaration order, from positional arguments (after an optional leading Config, stored in
// `*config`) and keywords by buffer name. Extra, unknown, twice-bound and unbound buffers raise
// INVALID_ARGUMENT; `what_to_pass` names what an unbound buffer wants ("buffer", "buffers").
struct BufferBindings {
  std::vector<std::size_t> slots;    // buffer indices of ir.buffers
  std::vector<py::handle> objects;   // per slot
};
BufferBindings bind_buffers(const vyre::Program& ir, const py::args& args, const py::kwargs& kwargs,
                            DispatchConfig* config, const char* what_to_pass);

// Allocate the outputs for these inputs, as arrays, and the spans the dispatch writes.
struct Outputs {
  std::vector<py::array> arrays;
  std::vector<host::MutableBytes> spans;
};
Outputs allocate_outputs(const PyProgram& program, const host::Program& compiled,
                         std::span<const host::Bytes> inputs);
// {wall_ns, device_ns (None without a device clock), enqueue_ns, wait_ns}.
py::dict timing_dict(const Timing& t);

// One output: the array; several: a tuple in declaration order.
py::object outputs_result(const PyProgram& program, std::vector<py::array> arrays);

}  // namespace vyre::python
