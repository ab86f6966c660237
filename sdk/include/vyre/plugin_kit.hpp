// The plugin kit: implement a backend plugin by writing one C++ class.
//
// The kit owns the C function table of backend_abi.h and everything that is the same for every
// backend: struct_size handling, exception-to-vyre_error conversion (no exception crosses the
// ABI), handle tables (a foreign, NULL or released handle is VYRE_ERR_INVALID_HANDLE, never a
// dereference), wire decoding and validation at compile time, the op-coverage check, and every
// dispatch input check that does not depend on the device (counts, byte lengths, output
// capacities, geometry). A backend sees only checked, typed views.
//
// A plugin's whole C surface is then:
//
//   extern "C" VYRE_PLUGIN_EXPORT vyre_status vyre_backend_register(const vyre_host_info* host,
//                                                                    vyre_backend_info* info) {
//     return vyre::kit::register_backend(my_plugin_spec(), host, info);
//   }
//
// Link the kit (target vyre::plugin_kit) into the plugin and build with hidden visibility.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "vyre/backend_abi.h"
#include "vyre/backend_values.hpp"
#include "vyre/error.hpp"
#include "vyre/geometry.hpp"
#include "vyre/ir.hpp"
#include "vyre/shard.hpp"

namespace vyre::kit {

using Bytes = std::span<const std::byte>;
using MutableBytes = std::span<std::byte>;

// ---- objects a backend creates -------------------------------------------------------------------

// A validated program. Backends derive from it to hold their compiled form.
class CompiledProgram {
 public:
  CompiledProgram(Program program, std::string fingerprint);
  virtual ~CompiledProgram() = default;
  CompiledProgram(const CompiledProgram&) = delete;
  CompiledProgram& operator=(const CompiledProgram&) = delete;

  const Program& program() const { return program_; }
  const std::string& fingerprint() const { return fingerprint_; }  // hex SHA-256 of wire bytes
  const std::vector<std::size_t>& input_buffers() const { return inputs_; }    // buffer indices
  const std::vector<std::size_t>& output_buffers() const { return outputs_; }  // buffer indices
  bool full_workgroups() const { return traits_.full_workgroups; }
  bool grid_sync() const { return grid_sync_; }
  // Computed once here, passed to resolve_geometry on every dispatch.
  const ProgramTraits& traits() const { return traits_; }

 private:
  Program program_;
  std::string fingerprint_;
  std::vector<std::size_t> inputs_;
  std::vector<std::size_t> outputs_;
  ProgramTraits traits_;
  bool grid_sync_ = false;
};

// A resident buffer. Backends derive from it to hold the device allocation, or imported memory
// (resident_import).
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::uint64_t byte_len) : byte_len_(byte_len) {}
  // For imported memory, calls the caller's release callback (once; after the derived destructor,
  // so a backend's destructor must not return before the last work on the memory finished).
  virtual ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  std::uint64_t byte_len() const { return byte_len_; }
  // Imported with VYRE_EXTERNAL_READ_ONLY: the kit refuses writable bindings and uploads.
  bool read_only() const { return read_only_; }
  // Dispatches in flight that use this buffer; the kit refuses resident_free while > 0
  // (VYRE_ERR_BUSY). Backends increment it when they enqueue work and decrement on completion.
  std::atomic<std::uint32_t> in_flight{0};

  // Called by the kit once an import succeeded; never by backends.
  void adopt_external(vyre_release_fn release, void* release_user, bool read_only) noexcept;

 private:
  std::uint64_t byte_len_;
  vyre_release_fn release_ = nullptr;
  void* release_user_ = nullptr;
  bool read_only_ = false;
};

// Memory the caller owns, to wrap as a DeviceBuffer (resident_import). The kit has checked the
// flags, that byte_len > 0, and that address is a multiple of the profile's external_alignment;
// the backend checks the kind and what only its driver can tell (device, allocation length).
struct ImportRequest {
  std::uint32_t kind = VYRE_MEMORY_DEVICE;  // VYRE_MEMORY_*
  std::uint64_t address = 0;
  std::uint64_t byte_len = 0;
  bool read_only = false;
};

// Where a DeviceBuffer's memory is (resident_export); the kit adds byte_len and flags.
struct MemoryLocation {
  std::uint32_t kind = VYRE_MEMORY_DEVICE;  // VYRE_MEMORY_*
  std::int32_t dlpack_device_type = VYRE_DLPACK_CPU;  // VYRE_DLPACK_*
  std::int32_t device_id = 0;
  std::uint64_t address = 0;
};

// An asynchronous dispatch. Methods throw vyre::Error when the work failed.
class Pending {
 public:
  virtual ~Pending() = default;  // must wait for the work (output memory is borrowed)
  virtual bool poll() = 0;                         // true once finished
  virtual bool wait(std::uint64_t timeout_ns) = 0;  // true once finished; false on timeout
  // Ask the work to stop and return at once (pending_cancel): unfinished work then ends with
  // VYRE_ERR_CANCELLED, finished work keeps its outcome, a second call changes nothing.
  // Default: VYRE_ERR_UNSUPPORTED (backends with VYRE_CAP_CANCEL override it).
  virtual void cancel();
};

// A pending dispatch that already finished (synchronous backends), holding its outcome.
class CompletedPending final : public Pending {
 public:
  CompletedPending() = default;
  explicit CompletedPending(Error failure) : failure_(std::move(failure)) {}
  bool poll() override;
  bool wait(std::uint64_t timeout_ns) override;
  void cancel() override {}  // already finished: the outcome stays

 private:
  std::optional<Error> failure_;
};

struct Counter {
  const char* name;  // static storage
  std::uint64_t value;
};

// ---- checked views the kit hands to a backend ----------------------------------------------------

// Where one host output goes: copy bytes [buffer_offset, buffer_offset + dst.size()) of the
// buffer (its output_byte_range, or all of it) into dst. dst.size() is exact, never a capacity.
struct OutputTarget {
  MutableBytes dst;
  std::uint64_t buffer_offset = 0;
};

// A host dispatch after every device-independent check: counts and byte lengths match the
// program, output capacities suffice, the geometry is resolved.
struct HostDispatch {
  std::shared_ptr<const CompiledProgram> program;
  DispatchConfig config;
  LaunchGeometry geometry;
  std::vector<std::uint64_t> buffer_elements;  // per declared buffer (workgroup: its count)
  std::vector<Bytes> inputs;                   // per host input, declaration order
  std::vector<OutputTarget> outputs;           // per host output, declaration order
  // VYRE_OUTPUTS_DISCARDED_ON_FAILURE was given: the backend may compute straight into `outputs`
  // (the caller drops them if the dispatch fails, and no input overlaps them).
  bool outputs_discarded_on_failure = false;
};

// One non-workgroup buffer of a resident dispatch, by declaration order. Exactly one of
// `resident` and `host` is set; `host` only for read/uniform buffers.
struct CheckedBinding {
  std::shared_ptr<DeviceBuffer> resident;
  Bytes host;
  std::uint64_t elements = 0;  // element count bound
};

struct ResidentDispatch {
  std::shared_ptr<const CompiledProgram> program;
  DispatchConfig config;
  LaunchGeometry geometry;
  std::vector<std::uint64_t> buffer_elements;  // per declared buffer
  std::vector<CheckedBinding> bindings;               // per declared buffer; empty for workgroup buffers
  // Set only by a sharded group dispatch (vyre/shard.hpp), and so only for backends that create
  // groups: run just these workgroups along x (every y and z) of `geometry`, with the global
  // WorkgroupId/InvocationId/NumWorkgroups; an empty range runs nothing.
  std::optional<ShardRange> shard;
  // Set only through VYRE_EXTENSION_NATIVE_STREAM (kit::dispatch_resident_after), and so only for
  // backends that offer it: the device work starts after everything queued on this native stream
  // (its kind is the extension's) before the call.
  std::optional<std::uint64_t> after_native_stream;
};

struct CheckedWrite {
  std::shared_ptr<DeviceBuffer> dst;
  std::uint64_t offset = 0;
  Bytes data;  // offset + size checked against dst
};

struct CheckedRead {
  std::shared_ptr<DeviceBuffer> src;
  std::uint64_t offset = 0;
  MutableBytes data;  // offset + size checked against src
};

struct CheckedSequence {
  std::vector<ResidentDispatch> prefix;
  std::vector<ResidentDispatch> repeated;
  std::uint64_t repeat_count = 0;
  std::vector<CheckedRead> reads;
};

// A program + config compiled for repeated host dispatch. The kit's default implementation
// dispatches through BackendImpl::dispatch and keeps the optional output cache; backends may derive.
class CompiledPipeline {
 public:
  CompiledPipeline(std::shared_ptr<const CompiledProgram> program, DispatchConfig config, std::uint32_t flags)
      : program_(std::move(program)), config_(std::move(config)), flags_(flags) {}
  virtual ~CompiledPipeline() = default;
  const std::shared_ptr<const CompiledProgram>& program() const { return program_; }
  const DispatchConfig& config() const { return config_; }
  std::uint32_t flags() const { return flags_; }

 private:
  std::shared_ptr<const CompiledProgram> program_;
  DispatchConfig config_;
  std::uint32_t flags_;
};

struct AotRequest {
  Program program;
  std::string fingerprint;
  std::optional<std::string> target;  // "sm_90"
  DispatchConfig config;
  Bytes weights;
};

// ---- the backend interface -----------------------------------------------------------------------

// One backend instance. Every method may be called from many threads at once. Methods report
// failure by throwing vyre::Error; the kit catches everything else too and reports it as
// VYRE_ERR_INTERNAL. Defaults throw VYRE_ERR_UNSUPPORTED unless noted.
class BackendImpl {
 public:
  virtual ~BackendImpl() = default;

  // Fill every field of a full-size profile; the kit copies what the caller's struct_size covers.
  virtual void device_profile(vyre_device_profile& out) = 0;

  // Compile a validated program whose ops the backend declares.
  virtual std::shared_ptr<CompiledProgram> compile(Program program, std::string fingerprint) = 0;

  virtual void dispatch(const HostDispatch& dispatch) = 0;
  // Default: dispatch synchronously and return a CompletedPending (holding the error, if any).
  // `dispatch.inputs` are borrowed for this call only: copy what the work needs before returning.
  // The output targets stay valid until the Pending reports completion or is destroyed; the kit
  // keeps the program (and, for resident work, the bound buffers) alive until then.
  virtual std::unique_ptr<Pending> dispatch_async(const HostDispatch& dispatch);
  // Default: dispatch with a host clock around it (no device time).
  virtual Timing dispatch_timed(const HostDispatch& dispatch);

  virtual std::shared_ptr<DeviceBuffer> resident_alloc(std::uint64_t byte_len);
  // Called only when no dispatch using the buffer is in flight; the kit drops its handle after.
  // The kit calls it exactly once per buffer: from resident_free, or at destroy for buffers still
  // live. Default: nothing (the buffer's destructor releases its memory).
  virtual void resident_free(DeviceBuffer& buffer);
  virtual void resident_upload(std::span<const CheckedWrite> writes);
  virtual void resident_download(std::span<const CheckedRead> reads);
  // Returns nullptr when `wait` is true (the work is done when it returns). With `wait` false,
  // host-bound bytes (CheckedBinding::host) are borrowed for this call only, as in dispatch_async.
  virtual std::unique_ptr<Pending> dispatch_resident(const ResidentDispatch& dispatch, bool wait);
  // Default: a host clock around dispatch_resident(dispatch, true).
  virtual Timing dispatch_resident_timed(const ResidentDispatch& dispatch);
  // Default: each step through dispatch_resident(step, true), in order, then resident_download.
  virtual void sequence_run(const CheckedSequence& sequence);

  // Default: a plain CompiledPipeline run through dispatch(); the kit applies VYRE_PIPELINE_CACHE_OUTPUTS.
  virtual std::shared_ptr<CompiledPipeline> pipeline_create(std::shared_ptr<const CompiledProgram> program,
                                                    const DispatchConfig& config,
                                                    std::uint32_t flags);
  // Called for pipelines this backend created; the default calls dispatch().
  virtual void pipeline_dispatch(CompiledPipeline& pipeline, const HostDispatch& dispatch);

  // Wrap caller-owned memory (see ImportRequest) without copying; never free it. Default:
  // VYRE_ERR_UNSUPPORTED. A backend that imports also reports device_profile's external_alignment.
  virtual std::shared_ptr<DeviceBuffer> resident_import(const ImportRequest& memory);
  // The native location of `buffer`'s memory, after every earlier work on it finished. Default:
  // VYRE_ERR_UNSUPPORTED.
  virtual MemoryLocation resident_export(DeviceBuffer& buffer);

  // Default: no counters.
  virtual std::vector<Counter> metrics();
  virtual void metrics_reset();
};

// ---- registration ---------------------------------------------------------------------------------

struct PluginSpec {
  std::string id;
  std::string version;
  std::uint32_t rank = 100;
  std::uint64_t capabilities = 0;
  std::vector<std::string> op_ids;
  // Create an instance; throws vyre::Error (VYRE_ERR_NO_DEVICE where it cannot run here).
  std::function<std::unique_ptr<BackendImpl>(const CreateOptions&)> create;
  // Optional: emit an AOT bundle. `instance` is null when called without one.
  std::function<std::vector<AotFile>(BackendImpl* instance, const AotRequest&)> aot_emit;
  // Optional: the first extension of the table's chain (backend_abi.h, "Extensions"); it and
  // everything it links must live as long as the library.
  const vyre_extension* extensions = nullptr;
};

// The capability flags a list of op ids implies: F16, BF16, F64, INT64, SUBGROUP, GRID_SYNC and
// ATOMICS, each when some op involves its type or family. A plugin ORs in its runtime's flags.
std::uint64_t op_capabilities(const std::vector<std::string>& op_ids);

// Fill `info` from `spec` (which must outlive the library) and install the kit's function table.
// Catches everything; never throws.
vyre_status register_backend(const PluginSpec& spec, const vyre_host_info* host,
                             vyre_backend_info* info) noexcept;

// For a plugin's own C entry points (an extension's functions): run `body`; VYRE_OK, or the status
// of whatever it threw with *error (when not NULL) set to an error object the table's
// error_release frees. Never throws.
vyre_status guarded_call(vyre_error** error, const std::function<void()>& body) noexcept;

// VYRE_EXTENSION_DEVICE_GROUP's dispatch_resident_shard (backend_abi.h), implemented by the kit
// for a plugin to put in its extension: the checked dispatch with ResidentDispatch::shard set,
// through BackendImpl::dispatch_resident (waiting). Only a backend whose dispatch_resident honours
// `shard` may use it. Never throws.
vyre_status dispatch_resident_shard(vyre_backend* backend, const vyre_resident_dispatch_args* args,
                                    std::uint32_t first_workgroup_x, std::uint32_t workgroup_count_x,
                                    vyre_error** error) noexcept;

// VYRE_EXTENSION_NATIVE_STREAM's dispatch_resident_after (backend_abi.h), implemented by the kit
// for a plugin to put in its extension: dispatch_resident with ResidentDispatch::after_native_stream
// set. Only a backend whose dispatch_resident honours that field may use it. Never throws.
vyre_status dispatch_resident_after(vyre_backend* backend, const vyre_resident_dispatch_args* args,
                                    std::uint64_t native_stream, vyre_pending** out, vyre_error** error) noexcept;

// For a plugin's own C entry points that take handles (an extension's functions): the BackendImpl
// of the live instance `backend` (the pointer keeps the instance alive), and a resident buffer of
// that instance. Throw vyre::Error VYRE_ERR_INVALID_HANDLE for a NULL, destroyed or foreign handle
// (another plugin's instance, another instance's buffer).
std::shared_ptr<BackendImpl> backend_of(const vyre_backend* backend);
std::shared_ptr<DeviceBuffer> resident_of(const vyre_backend* backend, const vyre_resident* buffer);

// Log through the host's callback (no-op when the host gave none).
void log(int level, const std::string& message) noexcept;

}  // namespace vyre::kit
