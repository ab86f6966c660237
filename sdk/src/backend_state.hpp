// The shared state behind the host wrapper's handle objects (vyre/backend.hpp). Private to the
// wrapper's sources.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vyre/abi_table.hpp"
#include "vyre/backend.hpp"
#include "vyre/plugin_exit_guard.hpp"

namespace vyre::host::detail {

// Owns a plugin error object until it is read.
class ErrorSlot {
 public:
  explicit ErrorSlot(const vyre_backend_fns& fns) : fns_(fns) {}
  ~ErrorSlot() { fns_.error_release(error_); }
  ErrorSlot(const ErrorSlot&) = delete;
  ErrorSlot& operator=(const ErrorSlot&) = delete;
  vyre_error** out() { return &error_; }
  // Throw for a failed status; the error object is released either way.
  void check(vyre_status status, std::string_view call);

 private:
  const vyre_backend_fns& fns_;
  vyre_error* error_ = nullptr;
};

struct InstanceState {
  std::shared_ptr<void> keep_alive;  // the plugin library; released last
  const vyre_backend_fns* fns = nullptr;
  vyre_backend* handle = nullptr;
  std::string label;

  InstanceState() = default;
  InstanceState(const InstanceState&) = delete;
  InstanceState& operator=(const InstanceState&) = delete;
  ~InstanceState();

  // Throw VYRE_ERR_UNSUPPORTED when the plugin's table lacks `member` (an ABI 1.0 plugin).
  void require(abi::TableMember member) const;
  // `config` as the plugin reads it; a time limit needs ABI 1.1 (else VYRE_ERR_UNSUPPORTED).
  vyre_dispatch_config config(const DispatchConfig& config) const;

  // Run `call(error_out)` (guarded against the plugin ending the process) and throw its failure.
  // `name` is a string literal.
  template <class Call>
  void invoke(const char* name, Call&& call) const {
    ErrorSlot slot(*fns);
    vyre_status status = VYRE_ERR_INTERNAL;
    {
      const PluginExitGuard guard(label.c_str(), name);
      status = call(slot.out());
    }
    slot.check(status, name);
  }
};

struct ProgramState {
  std::shared_ptr<InstanceState> instance;
  vyre_program* handle = nullptr;
  vyre::Program ir;
  ~ProgramState();
};

struct ResidentState {
  std::shared_ptr<InstanceState> instance;
  vyre_resident* handle = nullptr;
  std::uint64_t byte_len = 0;
  std::mutex mutex;
  bool freed = false;
  ~ResidentState();
};

struct PendingState {
  std::shared_ptr<InstanceState> instance;
  vyre_pending* handle = nullptr;
  std::vector<ByteVector> outputs;  // owned outputs (dispatch_async), else empty
  std::vector<vyre_host_output> output_structs;
  std::shared_ptr<ProgramState> program;
  std::vector<std::shared_ptr<ResidentState>> residents;
  std::mutex mutex;
  bool outputs_taken = false;
  ~PendingState();
};

struct PipelineState {
  std::shared_ptr<InstanceState> instance;
  vyre_pipeline* handle = nullptr;
  Program program;
  ~PipelineState();
};

// The plugin's VYRE_EXTENSION_DEVICE_GROUP extension when it has one with every 1.1 member set,
// else null.
inline const vyre_device_group_extension* device_group(const vyre_backend_fns* fns) {
  const vyre_extension* ext = vyre_find_extension(fns, VYRE_EXTENSION_DEVICE_GROUP);
  if (ext == nullptr || ext->struct_size < VYRE_DEVICE_GROUP_EXTENSION_V1_1_SIZE) return nullptr;
  const auto* group = reinterpret_cast<const vyre_device_group_extension*>(ext);
  if (group->device_count == nullptr || group->device_describe == nullptr || group->dispatch_resident_shard == nullptr)
    return nullptr;
  return group;
}

// The plugin's VYRE_EXTENSION_NATIVE_STREAM extension for streams of `kind` (VYRE_NATIVE_STREAM_*),
// when it has one with every 1.1 member set, else null.
inline const vyre_native_stream_extension* native_stream(const vyre_backend_fns* fns, std::uint32_t kind) {
  const vyre_extension* ext = vyre_find_extension(fns, VYRE_EXTENSION_NATIVE_STREAM);
  if (ext == nullptr || ext->struct_size < VYRE_NATIVE_STREAM_EXTENSION_V1_1_SIZE) return nullptr;
  const auto* streams = reinterpret_cast<const vyre_native_stream_extension*>(ext);
  if (streams->stream_kind != kind || streams->dispatch_resident_after == nullptr) return nullptr;
  return streams;
}

// vyre_host_input structs over `inputs`.
std::vector<vyre_host_input> host_inputs(std::span<const Bytes> inputs);
// vyre_host_output structs over `outputs`.
std::vector<vyre_host_output> host_outputs(std::span<const MutableBytes> outputs);
// Allocate one zeroed vector per output of `program` for `inputs`.
std::vector<ByteVector> allocate_outputs(const Program& program, std::span<const Bytes> inputs);
// Shrink each output to the byte_len the plugin reported.
void trim_outputs(std::vector<ByteVector>& outputs, const std::vector<vyre_host_output>& structs);
// The timing a plugin reported, in the wrapper's terms.
Timing from_abi(const vyre_timing& timing);

}  // namespace vyre::host::detail
