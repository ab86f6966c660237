// The host side of the plugin ABI: RAII C++ objects over one plugin's function table.
//
//   vyre::host::Backend backend = registry.create("reference_cpu");   // or Backend::create(fns, lib)
//   vyre::host::Program program = backend.compile(ir);
//   std::vector<vyre::host::ByteVector> outputs = backend.dispatch(program, {as_bytes(x), as_bytes(y)});
//
// Every object keeps what it needs alive: handles keep their Backend instance, and every object
// keeps the plugin library loaded (the `keep_alive` given at creation), so the library is unloaded
// only after the last object from it is gone. Handle objects are cheap shared references; the
// native handle is released when the last reference goes (or explicitly, e.g. ResidentBuffer::free).
// Every failure is thrown as vyre::Error with the plugin's code and message. All methods may be
// called from many threads at once. Nothing outside this wrapper and the plugin kit calls the raw
// function pointers of vyre_backend_fns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vyre/backend_abi.h"
#include "vyre/backend_values.hpp"
#include "vyre/error.hpp"
#include "vyre/ir.hpp"
#include "vyre/shard.hpp"

namespace vyre::host {

using Bytes = std::span<const std::byte>;
using MutableBytes = std::span<std::byte>;
using ByteVector = std::vector<std::byte>;

// View any contiguous range of trivially copyable values as bytes.
template <class Range>
Bytes as_bytes(const Range& range) {
  return std::as_bytes(std::span(range));
}

struct Metric {
  std::string name;
  std::uint64_t value = 0;
};

struct AotOptions {
  std::optional<std::string> target;  // "sm_90"; unset: the instance's device or the default
  DispatchConfig config;              // fixes the launch geometry
  Bytes weights;                      // uploaded into the first input buffer at launch
};

namespace detail {
struct InstanceState;
struct ProgramState;
struct ResidentState;
struct PendingState;
struct PipelineState;
}  // namespace detail

// Throw vyre::Error for a failed call (releasing `error` through `fns`); release it on success.
void check_call(const vyre_backend_fns& fns, vyre_status status, vyre_error* error,
                std::string_view call);

// A compiled program (vyre_program) of one backend instance.
class Program {
 public:
  Program() = default;
  explicit operator bool() const { return state_ != nullptr; }
  const vyre::Program& ir() const;            // the program as compiled
  vyre_program* native() const;               // for ABI-level tests only
  // Host outputs' byte sizes (trimmed) for inputs of these lengths, in declaration order.
  std::vector<std::size_t> output_sizes(std::span<const Bytes> inputs) const;

 private:
  friend class Backend;
  friend class Pipeline;
  std::shared_ptr<detail::ProgramState> state_;
};

// A buffer that lives on the backend's device.
class ResidentBuffer {
 public:
  ResidentBuffer() = default;
  explicit operator bool() const { return state_ != nullptr; }
  std::uint64_t byte_len() const;
  // Free the buffer now (VYRE_ERR_BUSY while a dispatch using it is in flight). Every copy of this
  // object then refers to a released handle: using it is VYRE_ERR_INVALID_HANDLE.
  void free();
  bool freed() const;
  vyre_resident* native() const;  // for ABI-level tests only

 private:
  friend class Backend;
  friend class Group;  // collectives check that each buffer is its member's
  std::shared_ptr<detail::ResidentState> state_;
};

// An asynchronous dispatch. Destroying the last reference waits for the work.
class PendingDispatch {
 public:
  PendingDispatch() = default;
  explicit operator bool() const { return state_ != nullptr; }
  bool poll() const;                         // true once finished; throws the work's error
  bool wait_for(std::uint64_t timeout_ns) const;  // false on timeout; throws the work's error
  // Wait for the work; return the outputs when the dispatch allocated them (dispatch_async),
  // otherwise an empty vector. Throws the work's error.
  std::vector<ByteVector> wait() const;
  // Ask the work to stop (ABI 1.1, pending_cancel): unfinished work then fails with
  // VYRE_ERR_CANCELLED; finished work keeps its outcome. Returns at once. Throws
  // VYRE_ERR_UNSUPPORTED where the backend cannot cancel (or speaks ABI 1.0).
  void cancel() const;
  vyre_pending* native() const;  // for ABI-level tests only

 private:
  friend class Backend;
  std::shared_ptr<detail::PendingState> state_;
};

// Memory the caller owns, to use as a resident buffer without a copy (ABI 1.1, resident_import):
// a device address valid in the backend's context (VYRE_MEMORY_DEVICE; CUDA: a CUdeviceptr of the
// instance's device) or a host pointer (VYRE_MEMORY_HOST, CPU backends).
struct ExternalMemory {
  std::uint32_t kind = VYRE_MEMORY_DEVICE;
  std::uint64_t address = 0;  // the device address, or the host pointer as (uintptr_t)
  std::uint64_t byte_len = 0;
  bool read_only = false;     // refuse writable bindings and uploads
  // Called exactly once, from any thread, when the backend no longer uses the memory (after the
  // buffer is freed and its last work finished); never when the import fails. Must not call
  // into the same backend instance. May be empty.
  std::function<void()> release;
};

// Where a resident buffer's memory is (ABI 1.1, resident_export): what DLPack needs.
struct ExportedMemory {
  std::uint32_t kind = VYRE_MEMORY_DEVICE;            // VYRE_MEMORY_*
  std::int32_t dlpack_device_type = VYRE_DLPACK_CPU;  // VYRE_DLPACK_*
  std::int32_t device_id = 0;
  std::uint64_t address = 0;
  std::uint64_t byte_len = 0;
  bool read_only = false;
};

// How one non-workgroup buffer of a resident dispatch is bound.
struct Binding {
  ResidentBuffer resident;  // set for a resident binding
  Bytes host;               // host bytes, for read and uniform buffers only
  bool is_host = false;

  static Binding of(ResidentBuffer buffer) { return Binding{std::move(buffer), {}, false}; }
  static Binding host_bytes(Bytes bytes) { return Binding{{}, bytes, true}; }
};

struct ResidentWrite {
  ResidentBuffer buffer;
  std::uint64_t offset = 0;
  Bytes data;
};

struct ResidentRead {
  ResidentBuffer buffer;
  std::uint64_t offset = 0;
  MutableBytes data;
};

struct SequenceStep {
  Program program;
  DispatchConfig config;
  std::vector<ResidentBuffer> buffers;  // one per non-workgroup buffer, declaration order
};

struct Sequence {
  std::vector<SequenceStep> prefix;
  std::vector<SequenceStep> repeated;
  std::uint64_t repeat_count = 0;
  std::vector<ResidentRead> reads;
};

struct TimedOutputs {
  std::vector<ByteVector> outputs;
  Timing timing;
};

// A program + config compiled for repeated host dispatch.
class Pipeline {
 public:
  Pipeline() = default;
  explicit operator bool() const { return state_ != nullptr; }
  std::vector<ByteVector> dispatch(std::span<const Bytes> inputs) const;
  // Write into caller buffers; returns the bytes written per output.
  std::vector<std::size_t> dispatch_into(std::span<const Bytes> inputs,
                                         std::span<const MutableBytes> outputs) const;
  const Program& program() const;

 private:
  friend class Backend;
  std::shared_ptr<detail::PipelineState> state_;
};

// One backend instance.
class Backend {
 public:
  Backend() = default;
  // Create an instance through `fns`. `keep_alive` keeps the plugin library loaded while anything
  // made from this instance lives (may be null for statically linked tables). `label` names the
  // backend in messages (its id).
  static Backend create(const vyre_backend_fns* fns, std::shared_ptr<void> keep_alive,
                        const CreateOptions& options = {}, std::string label = {});

  explicit operator bool() const { return state_ != nullptr; }
  const std::string& label() const;
  const vyre_backend_fns& fns() const;  // for ABI-level tests only
  vyre_backend* native() const;         // for ABI-level tests only

  vyre_device_profile device_profile() const;
  // Every device the plugin can create an instance on, by ordinal (index i is ordinal i), through
  // its VYRE_EXTENSION_DEVICE_GROUP extension. A plugin without that extension reports just this
  // instance's device. Thread-safe; throws vyre::Error as the plugin reports it.
  std::vector<vyre_device_profile> devices() const;

  Program compile(const vyre::Program& program) const;
  Program compile_wire(std::span<const std::uint8_t> wire) const;

  // Host dispatch: inputs are the program's read/uniform/read_write buffers in declaration order;
  // the result holds its read_write/output buffers (trimmed to output_byte_range).
  std::vector<ByteVector> dispatch(const Program& program, std::span<const Bytes> inputs,
                                   const DispatchConfig& config = {}) const;
  std::vector<std::size_t> dispatch_into(const Program& program, std::span<const Bytes> inputs,
                                         std::span<const MutableBytes> outputs,
                                         const DispatchConfig& config = {}) const;
  // The outputs are allocated by the PendingDispatch and returned by its wait().
  PendingDispatch dispatch_async(const Program& program, std::span<const Bytes> inputs,
                                 const DispatchConfig& config = {}) const;
  // `outputs` must stay valid until the pending dispatch finished.
  PendingDispatch dispatch_async_into(const Program& program, std::span<const Bytes> inputs,
                                      std::span<const MutableBytes> outputs,
                                      const DispatchConfig& config = {}) const;
  TimedOutputs dispatch_timed(const Program& program, std::span<const Bytes> inputs,
                              const DispatchConfig& config = {}) const;

  ResidentBuffer alloc(std::uint64_t byte_len) const;
  std::vector<ResidentBuffer> alloc_many(std::span<const std::uint64_t> byte_lens) const;
  void upload(const ResidentBuffer& buffer, std::uint64_t offset, Bytes data) const;
  void upload(std::span<const ResidentWrite> writes) const;
  ByteVector download(const ResidentBuffer& buffer, std::uint64_t offset, std::uint64_t byte_len) const;
  void download(std::span<const ResidentRead> reads) const;

  void dispatch_resident(const Program& program, std::span<const Binding> bindings,
                         const DispatchConfig& config = {}) const;
  // One device's share of a group dispatch (vyre/group.hpp): only the workgroups of `shard` along
  // x run, with the global ids of the whole dispatch; synchronous. VYRE_ERR_UNSUPPORTED where the
  // backend has no device-group extension (can_shard() is false), for grid_sync programs and for
  // fixpoint_iterations > 1.
  void dispatch_resident_shard(const Program& program, std::span<const Binding> bindings,
                               const ShardRange& shard, const DispatchConfig& config = {}) const;
  bool can_shard() const;
  PendingDispatch dispatch_resident_async(const Program& program, std::span<const Binding> bindings,
                                          const DispatchConfig& config = {}) const;
  // A resident dispatch whose device work starts after everything queued so far on another
  // library's stream of the same device (`kind` VYRE_NATIVE_STREAM_CUDA: a CUstream, 0 the legacy
  // default stream; torch.cuda.current_stream().cuda_stream, cupy's Stream.ptr), without a host
  // wait; synchronous like dispatch_resident. VYRE_ERR_UNSUPPORTED where the backend has no
  // VYRE_EXTENSION_NATIVE_STREAM for that kind (can_wait_native_stream() is false): then
  // synchronize the stream yourself and call dispatch_resident.
  void dispatch_resident_after(const Program& program, std::span<const Binding> bindings, std::uint32_t kind,
                               std::uint64_t native_stream, const DispatchConfig& config = {}) const;
  bool can_wait_native_stream(std::uint32_t kind) const;
  Timing dispatch_resident_timed(const Program& program, std::span<const Binding> bindings,
                                 const DispatchConfig& config = {}) const;
  void sequence(const Sequence& sequence) const;

  Pipeline pipeline(const Program& program, const DispatchConfig& config = {},
                    std::uint32_t flags = 0) const;

  // ABI 1.1: wrap caller-owned memory without a copy (see ExternalMemory), and the native location
  // of a buffer (valid until it is freed; returned after every earlier work on it finished).
  // Throw VYRE_ERR_UNSUPPORTED where the backend cannot (or speaks ABI 1.0).
  ResidentBuffer import_memory(ExternalMemory memory) const;
  ExportedMemory export_memory(const ResidentBuffer& buffer) const;

  // The plugin's ABI minor version, as its function table shows it (0 or 1 for ABI 1.x).
  std::uint32_t abi_minor() const;
  // The extension of `type` in the plugin's chain (backend_abi.h, "Extensions"), or null.
  const vyre_extension* extension(std::uint32_t type) const;

  std::vector<Metric> metrics() const;
  void reset_metrics() const;

  std::vector<AotFile> aot_emit(const vyre::Program& program, const AotOptions& options = {}) const;
  // AOT emission without an instance (no device needed).
  static std::vector<AotFile> aot_emit(const vyre_backend_fns* fns, const vyre::Program& program,
                                       const AotOptions& options = {});

 private:
  // dispatch_into / dispatch_async_into with vyre_dispatch_args.output_flags (VYRE_OUTPUTS_*): the
  // allocating calls pass VYRE_OUTPUTS_DISCARDED_ON_FAILURE, since their outputs are fresh and are
  // dropped when the call fails.
  std::vector<std::size_t> run_into(const Program& program, std::span<const Bytes> inputs,
                                    std::span<const MutableBytes> outputs, const DispatchConfig& config,
                                    std::uint32_t output_flags) const;
  PendingDispatch start_async(const Program& program, std::span<const Bytes> inputs,
                              std::span<const MutableBytes> outputs, const DispatchConfig& config,
                              std::uint32_t output_flags) const;
  // A ResidentBuffer owning `handle` (from resident_alloc or resident_import).
  ResidentBuffer wrap_resident(vyre_resident* handle, std::uint64_t byte_len) const;
  void require_own(const Program& program, std::string_view what) const;
  void require_own(const ResidentBuffer& buffer, std::string_view what) const;
  // The program and every resident buffer among `bindings`.
  void require_own(const Program& program, std::span<const Binding> bindings,
                   std::string_view what) const;

  friend class Group;
  std::shared_ptr<detail::InstanceState> state_;
};

}  // namespace vyre::host
