// The host wrapper: resident buffers, resident dispatch, sequences, pending dispatches, pipelines.
#include <algorithm>

#include "backend_state.hpp"
#include "vyre/backend.hpp"

namespace vyre::host {

namespace detail {

ResidentState::~ResidentState() {
  if (freed || handle == nullptr) return;
  vyre_error* error = nullptr;
  instance->fns->resident_free(instance->handle, handle, &error);
  instance->fns->error_release(error);  // BUSY here: the instance frees it at destroy
}

PendingState::~PendingState() {
  if (handle == nullptr) return;
  vyre_error* error = nullptr;
  instance->fns->pending_release(instance->handle, handle, &error);  // waits
  instance->fns->error_release(error);
}

}  // namespace detail

namespace {

std::vector<vyre_binding> to_abi_bindings(std::span<const Binding> bindings) {
  std::vector<vyre_binding> out;
  out.reserve(bindings.size());
  for (const Binding& b : bindings) {
    vyre_binding binding{};
    binding.struct_size = sizeof binding;
    if (b.is_host) {
      binding.kind = VYRE_BIND_HOST;
      binding.host_data = b.host.data();
      binding.host_byte_len = b.host.size();
    } else {
      binding.kind = VYRE_BIND_RESIDENT;
      binding.resident = b.resident.native();
    }
    out.push_back(binding);
  }
  return out;
}

// The ABI arguments of one resident dispatch with the binding and config structs they point into.
// Neither copyable nor movable: `args_` points at the other members.
class ResidentDispatchArgs {
 public:
  ResidentDispatchArgs(const Program& program, std::span<const Binding> bindings,
                       const vyre_dispatch_config& config)
      : bindings_(to_abi_bindings(bindings)),
        config_(config),
        args_{sizeof(vyre_resident_dispatch_args), program.native(), &config_, bindings_.data(),
              bindings_.size()} {}
  ResidentDispatchArgs(const ResidentDispatchArgs&) = delete;
  ResidentDispatchArgs& operator=(const ResidentDispatchArgs&) = delete;

  const vyre_resident_dispatch_args* get() const { return &args_; }

 private:
  std::vector<vyre_binding> bindings_;
  vyre_dispatch_config config_;
  vyre_resident_dispatch_args args_;
};

}  // namespace

// ---- ResidentBuffer -----------------------------------------------------------------------------

std::uint64_t ResidentBuffer::byte_len() const { return state_->byte_len; }
vyre_resident* ResidentBuffer::native() const { return state_ ? state_->handle : nullptr; }

bool ResidentBuffer::freed() const {
  std::lock_guard lock(state_->mutex);
  return state_->freed;
}

void ResidentBuffer::free() {
  std::lock_guard lock(state_->mutex);
  if (state_->freed)
    fail(VYRE_ERR_INVALID_HANDLE, "the resident buffer was already freed",
         "free each resident buffer once");
  const detail::InstanceState& instance = *state_->instance;
  instance.invoke("resident_free", [&](vyre_error** e) {
    return instance.fns->resident_free(instance.handle, state_->handle, e);
  });
  state_->freed = true;
}

// ---- PendingDispatch ----------------------------------------------------------------------------

vyre_pending* PendingDispatch::native() const { return state_ ? state_->handle : nullptr; }

bool PendingDispatch::poll() const {
  const detail::InstanceState& instance = *state_->instance;
  std::int32_t done = 0;
  instance.invoke("pending_poll", [&](vyre_error** e) {
    return instance.fns->pending_poll(instance.handle, state_->handle, &done, e);
  });
  return done != 0;
}

bool PendingDispatch::wait_for(std::uint64_t timeout_ns) const {
  const detail::InstanceState& instance = *state_->instance;
  detail::ErrorSlot slot(*instance.fns);
  const vyre_status status =
      instance.fns->pending_wait(instance.handle, state_->handle, timeout_ns, slot.out());
  // TIMEOUT is either the wait running out or the work passing its own deadline (ABI 1.1):
  // poll tells them apart (it reports the work's error once it finished).
  if (status == VYRE_ERR_TIMEOUT) return poll();
  slot.check(status, "pending_wait");
  return true;
}

std::vector<ByteVector> PendingDispatch::wait() const {
  wait_for(UINT64_MAX);
  std::lock_guard lock(state_->mutex);
  if (state_->outputs_taken) return {};
  state_->outputs_taken = true;
  detail::trim_outputs(state_->outputs, state_->output_structs);
  return std::move(state_->outputs);
}

// ---- Pipeline -----------------------------------------------------------------------------------

const Program& Pipeline::program() const { return state_->program; }

std::vector<std::size_t> Pipeline::dispatch_into(std::span<const Bytes> inputs,
                                                 std::span<const MutableBytes> outputs) const {
  const detail::InstanceState& instance = *state_->instance;
  std::vector<vyre_host_input> in = detail::host_inputs(inputs);
  std::vector<vyre_host_output> out = detail::host_outputs(outputs);
  const vyre_pipeline_dispatch_args args{sizeof(vyre_pipeline_dispatch_args), state_->handle,
                                         in.data(), in.size(), out.data(), out.size()};
  instance.invoke("pipeline_dispatch", [&](vyre_error** e) {
    return instance.fns->pipeline_dispatch(instance.handle, &args, e);
  });
  std::vector<std::size_t> written;
  for (const vyre_host_output& o : out) written.push_back(std::min(o.byte_len, o.capacity));
  return written;
}

std::vector<ByteVector> Pipeline::dispatch(std::span<const Bytes> inputs) const {
  std::vector<ByteVector> outputs = detail::allocate_outputs(state_->program, inputs);
  std::vector<MutableBytes> spans;
  for (ByteVector& o : outputs) spans.emplace_back(o);
  const std::vector<std::size_t> written = dispatch_into(inputs, spans);
  for (std::size_t i = 0; i < outputs.size(); ++i) outputs[i].resize(written[i]);
  return outputs;
}

// ---- Backend: resident --------------------------------------------------------------------------

void Backend::require_own(const ResidentBuffer& buffer, std::string_view what) const {
  if (!buffer)
    fail(VYRE_ERR_INVALID_HANDLE, std::string(what) + ": the resident buffer is empty",
         "allocate it with this backend first");
  if (buffer.state_->instance->fns != state_->fns)
    fail(VYRE_ERR_INVALID_HANDLE,
         std::string(what) + ": the resident buffer belongs to backend '" +
             buffer.state_->instance->label + "', not '" + state_->label + "'",
         "allocate resident buffers on the backend that uses them");
}

ResidentBuffer Backend::alloc(std::uint64_t byte_len) const {
  vyre_resident* handle = nullptr;
  state_->invoke("resident_alloc", [&](vyre_error** e) {
    return state_->fns->resident_alloc(state_->handle, byte_len, &handle, e);
  });
  return wrap_resident(handle, byte_len);
}

ResidentBuffer Backend::wrap_resident(vyre_resident* handle, std::uint64_t byte_len) const {
  auto state = std::make_shared<detail::ResidentState>();
  state->instance = state_;
  state->handle = handle;
  state->byte_len = byte_len;
  ResidentBuffer buffer;
  buffer.state_ = std::move(state);
  return buffer;
}

std::vector<ResidentBuffer> Backend::alloc_many(std::span<const std::uint64_t> byte_lens) const {
  std::vector<ResidentBuffer> buffers;
  buffers.reserve(byte_lens.size());
  for (std::uint64_t len : byte_lens) buffers.push_back(alloc(len));
  return buffers;
}

void Backend::upload(const ResidentBuffer& buffer, std::uint64_t offset, Bytes data) const {
  const ResidentWrite write{buffer, offset, data};
  upload(std::span(&write, 1));
}

void Backend::upload(std::span<const ResidentWrite> writes) const {
  std::vector<vyre_resident_write> raw;
  for (const ResidentWrite& w : writes) {
    require_own(w.buffer, "upload");
    raw.push_back({sizeof(vyre_resident_write), w.buffer.native(), w.offset, w.data.data(),
                   w.data.size()});
  }
  state_->invoke("resident_upload", [&](vyre_error** e) {
    return state_->fns->resident_upload(state_->handle, raw.data(), raw.size(), e);
  });
}

ByteVector Backend::download(const ResidentBuffer& buffer, std::uint64_t offset,
                             std::uint64_t byte_len) const {
  require_own(buffer, "download");
  if (offset > buffer.byte_len() || byte_len > buffer.byte_len() - offset)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         "download of bytes [" + std::to_string(offset) + ", +" + std::to_string(byte_len) +
             ") from a resident buffer of " + std::to_string(buffer.byte_len()) + " bytes",
         "keep offset + byte_len within the buffer");
  ByteVector bytes(static_cast<std::size_t>(byte_len));
  const ResidentRead read{buffer, offset, MutableBytes(bytes)};
  download(std::span(&read, 1));
  return bytes;
}

void Backend::download(std::span<const ResidentRead> reads) const {
  std::vector<vyre_resident_read> raw;
  for (const ResidentRead& r : reads) {
    require_own(r.buffer, "download");
    raw.push_back({sizeof(vyre_resident_read), r.buffer.native(), r.offset, r.data.data(),
                   r.data.size()});
  }
  state_->invoke("resident_download", [&](vyre_error** e) {
    return state_->fns->resident_download(state_->handle, raw.data(), raw.size(), e);
  });
}

void Backend::require_own(const Program& program, std::span<const Binding> bindings,
                          std::string_view what) const {
  require_own(program, what);
  for (const Binding& b : bindings)
    if (!b.is_host) require_own(b.resident, what);
}

void Backend::dispatch_resident(const Program& program, std::span<const Binding> bindings,
                                const DispatchConfig& config) const {
  require_own(program, bindings, "dispatch_resident");
  const ResidentDispatchArgs args(program, bindings, state_->config(config));
  state_->invoke("dispatch_resident", [&](vyre_error** e) {
    return state_->fns->dispatch_resident(state_->handle, args.get(), nullptr, e);
  });
}

bool Backend::can_shard() const { return detail::device_group(state_->fns) != nullptr; }

void Backend::dispatch_resident_shard(const Program& program, std::span<const Binding> bindings,
                                      const ShardRange& shard, const DispatchConfig& config) const {
  const vyre_device_group_extension* group = detail::device_group(state_->fns);
  if (group == nullptr) {
    fail(VYRE_ERR_UNSUPPORTED, "backend '" + state_->label + "' cannot run a share of a group dispatch (it has no device-group extension)",
         "form device groups from instances of a backend that can (cuda)");
  }
  require_own(program, bindings, "dispatch_resident_shard");
  const ResidentDispatchArgs args(program, bindings, state_->config(config));
  state_->invoke("dispatch_resident_shard", [&](vyre_error** e) {
    return group->dispatch_resident_shard(state_->handle, args.get(), shard.first, shard.count, e);
  });
}

bool Backend::can_wait_native_stream(std::uint32_t kind) const {
  return detail::native_stream(state_->fns, kind) != nullptr;
}

void Backend::dispatch_resident_after(const Program& program, std::span<const Binding> bindings, std::uint32_t kind,
                                      std::uint64_t native_stream, const DispatchConfig& config) const {
  const vyre_native_stream_extension* streams = detail::native_stream(state_->fns, kind);
  if (streams == nullptr) {
    fail(VYRE_ERR_UNSUPPORTED,
         "backend '" + state_->label + "' cannot order a dispatch after a native stream of kind " + std::to_string(kind) +
             " (it has no native-stream extension for it)",
         "synchronize the stream on the host, then call dispatch_resident");
  }
  require_own(program, bindings, "dispatch_resident_after");
  const ResidentDispatchArgs args(program, bindings, state_->config(config));
  state_->invoke("dispatch_resident_after", [&](vyre_error** e) {
    return streams->dispatch_resident_after(state_->handle, args.get(), native_stream, nullptr, e);
  });
}

PendingDispatch Backend::dispatch_resident_async(const Program& program,
                                                 std::span<const Binding> bindings,
                                                 const DispatchConfig& config) const {
  require_own(program, bindings, "dispatch_resident_async");
  auto state = std::make_shared<detail::PendingState>();
  state->instance = state_;
  state->program = program.state_;
  state->residents.reserve(bindings.size());
  for (const Binding& b : bindings)
    if (!b.is_host) state->residents.push_back(b.resident.state_);
  const ResidentDispatchArgs args(program, bindings, state_->config(config));
  state_->invoke("dispatch_resident", [&](vyre_error** e) {
    return state_->fns->dispatch_resident(state_->handle, args.get(), &state->handle, e);
  });
  PendingDispatch pending;
  pending.state_ = std::move(state);
  return pending;
}

Timing Backend::dispatch_resident_timed(const Program& program, std::span<const Binding> bindings,
                                        const DispatchConfig& config) const {
  require_own(program, bindings, "dispatch_resident_timed");
  const ResidentDispatchArgs args(program, bindings, state_->config(config));
  vyre_timing timing{};
  timing.struct_size = sizeof timing;
  state_->invoke("dispatch_resident_timed", [&](vyre_error** e) {
    return state_->fns->dispatch_resident_timed(state_->handle, args.get(), &timing, e);
  });
  return detail::from_abi(timing);
}

void Backend::sequence(const Sequence& sequence) const {
  // Storage that must stay put while the ABI structs point into it.
  std::vector<vyre_dispatch_config> configs;
  std::vector<std::vector<vyre_binding>> bindings;
  configs.reserve(sequence.prefix.size() + sequence.repeated.size());
  bindings.reserve(sequence.prefix.size() + sequence.repeated.size());
  auto to_steps = [&](const std::vector<SequenceStep>& steps) {
    std::vector<vyre_sequence_step> out;
    for (const SequenceStep& step : steps) {
      require_own(step.program, "sequence");
      std::vector<Binding> step_bindings;
      for (const ResidentBuffer& buffer : step.buffers) {
        require_own(buffer, "sequence");
        step_bindings.push_back(Binding::of(buffer));
      }
      bindings.push_back(to_abi_bindings(step_bindings));
      configs.push_back(state_->config(step.config));
      out.push_back({sizeof(vyre_sequence_step), step.program.native(), &configs.back(),
                     bindings.back().data(), bindings.back().size()});
    }
    return out;
  };
  const std::vector<vyre_sequence_step> prefix = to_steps(sequence.prefix);
  const std::vector<vyre_sequence_step> repeated = to_steps(sequence.repeated);
  std::vector<vyre_resident_read> reads;
  for (const ResidentRead& r : sequence.reads) {
    require_own(r.buffer, "sequence");
    reads.push_back({sizeof(vyre_resident_read), r.buffer.native(), r.offset, r.data.data(),
                     r.data.size()});
  }
  const vyre_sequence_args args{sizeof(vyre_sequence_args), prefix.data(), prefix.size(),
                                repeated.data(), repeated.size(), sequence.repeat_count,
                                reads.data(), reads.size()};
  state_->invoke("sequence_run",
                 [&](vyre_error** e) { return state_->fns->sequence_run(state_->handle, &args, e); });
}

// ---- Backend: pipelines -------------------------------------------------------------------------

Pipeline Backend::pipeline(const Program& program, const DispatchConfig& config,
                           std::uint32_t flags) const {
  require_own(program, "pipeline");
  const vyre_dispatch_config abi_config = state_->config(config);
  const vyre_pipeline_args args{sizeof(vyre_pipeline_args), program.native(), &abi_config, flags};
  vyre_pipeline* handle = nullptr;
  state_->invoke("pipeline_create", [&](vyre_error** e) {
    return state_->fns->pipeline_create(state_->handle, &args, &handle, e);
  });
  auto state = std::make_shared<detail::PipelineState>();
  state->instance = state_;
  state->handle = handle;
  state->program = program;
  Pipeline pipeline;
  pipeline.state_ = std::move(state);
  return pipeline;
}

}  // namespace vyre::host
