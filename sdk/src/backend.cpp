// The host wrapper: instances, programs, host dispatch, metrics, device profile, AOT.
#include "vyre/backend.hpp"

#include <algorithm>
#include <cstring>

#include "backend_state.hpp"
#include "vyre/abi_convert.hpp"
#include "vyre/abi_structs.hpp"
#include "vyre/printable.hpp"
#include "vyre/wire.hpp"

namespace vyre::host {

namespace {

// Longest plugin error message kept (it reaches terminals and logs; validation reports are long).
constexpr std::size_t kMaxPluginErrorBytes = 64 * 1024;

}  // namespace

namespace detail {

void ErrorSlot::check(vyre_status status, std::string_view call) {
  vyre_error* error = error_;
  error_ = nullptr;  // check_call releases it
  check_call(fns_, status, error, call);
}

InstanceState::~InstanceState() {
  if (handle == nullptr) return;
  const PluginExitGuard guard(label.c_str(), "destroy");
  fns->destroy(handle);
}

ProgramState::~ProgramState() {
  if (handle == nullptr) return;
  vyre_error* error = nullptr;
  instance->fns->program_release(instance->handle, handle, &error);
  instance->fns->error_release(error);
}

PipelineState::~PipelineState() {
  if (handle == nullptr) return;
  vyre_error* error = nullptr;
  instance->fns->pipeline_release(instance->handle, handle, &error);
  instance->fns->error_release(error);
}

std::vector<vyre_host_input> host_inputs(std::span<const Bytes> inputs) {
  std::vector<vyre_host_input> out;
  out.reserve(inputs.size());
  for (Bytes input : inputs) out.push_back({sizeof(vyre_host_input), input.data(), input.size()});
  return out;
}

std::vector<vyre_host_output> host_outputs(std::span<const MutableBytes> outputs) {
  std::vector<vyre_host_output> out;
  out.reserve(outputs.size());
  for (MutableBytes output : outputs)
    out.push_back({sizeof(vyre_host_output), output.data(), output.size(), 0});
  return out;
}

std::vector<ByteVector> allocate_outputs(const Program& program, std::span<const Bytes> inputs) {
  std::vector<ByteVector> outputs;
  for (std::size_t size : program.output_sizes(inputs)) outputs.emplace_back(size);
  return outputs;
}

void trim_outputs(std::vector<ByteVector>& outputs, const std::vector<vyre_host_output>& structs) {
  for (std::size_t i = 0; i < outputs.size() && i < structs.size(); ++i)
    if (structs[i].byte_len <= outputs[i].size()) outputs[i].resize(structs[i].byte_len);
}

Timing from_abi(const vyre_timing& t) {
  return Timing{t.wall_ns, t.device_ns, t.enqueue_ns, t.wait_ns, t.has_device_ns != 0};
}

}  // namespace detail

namespace {

std::vector<MutableBytes> spans_of(std::vector<ByteVector>& outputs) {
  std::vector<MutableBytes> spans;
  spans.reserve(outputs.size());
  for (ByteVector& output : outputs) spans.emplace_back(output);
  return spans;
}

vyre_create_options to_abi(const CreateOptions& options) {
  vyre_create_options out{};
  out.struct_size = sizeof out;
  out.device_ordinal = options.device_ordinal.value_or(-1);
  out.flags = options.reverse_workgroups ? VYRE_CREATE_REVERSE_WORKGROUPS : 0;
  out.worker_threads = options.worker_threads;
  out.memory_budget_bytes = options.memory_budget_bytes;
  return out;
}

std::vector<AotFile> copy_aot(const vyre_backend_fns& fns, vyre_aot_output* output) {
  std::vector<AotFile> files;
  try {
    const vyre_aot_output out = abi::read_struct<vyre_aot_output>(output, "vyre_aot_output");
    abi::StridedArray<vyre_aot_file> array(out.files, out.file_count, "vyre_aot_output.files");
    for (std::size_t i = 0; i < array.size(); ++i) {
      const vyre_aot_file file = array[i];
      AotFile copy;
      copy.name = file.name ? file.name : "";
      if (file.byte_len > 0) copy.data.assign(file.data, file.data + file.byte_len);
      files.push_back(std::move(copy));
    }
  } catch (...) {
    fns.aot_release(output);
    throw;
  }
  fns.aot_release(output);
  return files;
}

std::vector<AotFile> emit(const vyre_backend_fns& fns, vyre_backend* backend,
                          const vyre::Program& program, const AotOptions& options) {
  const std::vector<std::uint8_t> wire = encode_wire(program);
  const vyre_dispatch_config config = abi::to_abi(options.config);
  vyre_aot_args args{};
  args.struct_size = sizeof args;
  args.wire = wire.data();
  args.wire_len = wire.size();
  args.target = options.target ? options.target->c_str() : nullptr;
  args.config = &config;
  args.weights = options.weights.data();
  args.weights_byte_len = options.weights.size();
  vyre_aot_output* output = nullptr;
  detail::ErrorSlot slot(fns);
  slot.check(fns.aot_emit(backend, &args, &output, slot.out()), "aot_emit");
  return copy_aot(fns, output);
}

}  // namespace

void check_call(const vyre_backend_fns& fns, vyre_status status, vyre_error* error,
                std::string_view call) {
  if (status == VYRE_OK) {
    fns.error_release(error);
    return;
  }
  std::string message;
  if (error != nullptr && abi::struct_size_of(error) >= abi::min_size<vyre_error>() &&
      error->message != nullptr)
    message = printable(error->message, kMaxPluginErrorBytes, Newlines::keep);
  fns.error_release(error);
  if (message.empty())
    message = std::string(call) + " failed with status " + std::string(status_name(status)) +
              " and no message. Fix: run with -v for the backend's log, or report the plugin.";
  throw Error(status, message);
}

// ---- Program ------------------------------------------------------------------------------------

const vyre::Program& Program::ir() const { return state_->ir; }
vyre_program* Program::native() const { return state_ ? state_->handle : nullptr; }

std::vector<std::size_t> Program::output_sizes(std::span<const Bytes> inputs) const {
  const vyre::Program& p = state_->ir;
  const std::vector<std::size_t> in = p.input_indices();
  std::vector<std::size_t> sizes;
  for (std::size_t index : p.output_indices()) {
    const BufferDecl& buffer = p.buffers[index];
    std::uint64_t bytes = std::uint64_t{buffer.count} * byte_size(buffer.element);
    if (buffer.count == 0) {
      auto it = std::find(in.begin(), in.end(), index);
      const std::size_t slot = static_cast<std::size_t>(it - in.begin());
      bytes = slot < inputs.size() ? inputs[slot].size() : 0;
    }
    // Never more than the buffer: a range past a runtime-sized buffer's end (only checkable at
    // dispatch) must become the kit's INVALID_ARGUMENT, not a huge allocation here.
    if (buffer.output_byte_range)
      bytes = std::min(bytes, buffer.output_byte_range->end - std::min(buffer.output_byte_range->begin,
                                                                       buffer.output_byte_range->end));
    sizes.push_back(static_cast<std::size_t>(bytes));
  }
  return sizes;
}

// ---- Backend ------------------------------------------------------------------------------------

Backend Backend::create(const vyre_backend_fns* fns, std::shared_ptr<void> keep_alive,
                        const CreateOptions& options, std::string label) {
  if (fns == nullptr)
    fail(VYRE_ERR_INVALID_ARGUMENT, "Backend::create: the function table is NULL",
         "pass the vyre_backend_fns a plugin registered");
  abi::require_min_size<vyre_backend_fns>(fns->struct_size, "vyre_backend_fns");
  auto state = std::make_shared<detail::InstanceState>();
  state->keep_alive = std::move(keep_alive);
  state->fns = fns;
  state->label = std::move(label);
  const vyre_create_options abi_options = to_abi(options);
  vyre_backend* handle = nullptr;
  state->invoke("create", [&](vyre_error** e) { return fns->create(&abi_options, &handle, e); });
  state->handle = handle;
  Backend backend;
  backend.state_ = std::move(state);
  return backend;
}

const std::string& Backend::label() const { return state_->label; }
const vyre_backend_fns& Backend::fns() const { return *state_->fns; }
vyre_backend* Backend::native() const { return state_->handle; }

void Backend::require_own(const Program& program, std::string_view what) const {
  if (!program)
    fail(VYRE_ERR_INVALID_HANDLE, std::string(what) + ": the program is empty",
         "compile the program with this backend first");
  if (program.state_->instance->fns != state_->fns)
    fail(VYRE_ERR_INVALID_HANDLE,
         std::string(what) + ": the program was compiled by backend '" +
             program.state_->instance->label + "', not '" + state_->label + "'",
         "compile the program with the backend that dispatches it");
}

vyre_device_profile Backend::device_profile() const {
  vyre_device_profile profile{};
  profile.struct_size = sizeof profile;
  state_->invoke("device_profile",
                 [&](vyre_error** e) { return state_->fns->device_profile(state_->handle, &profile, e); });
  return profile;
}

Program Backend::compile(const vyre::Program& program) const {
  const std::vector<std::uint8_t> wire = encode_wire(program);
  return compile_wire(wire);
}

Program Backend::compile_wire(std::span<const std::uint8_t> wire) const {
  vyre_program* handle = nullptr;
  state_->invoke("program_compile", [&](vyre_error** e) {
    return state_->fns->program_compile(state_->handle, wire.data(), wire.size(), &handle, e);
  });
  auto state = std::make_shared<detail::ProgramState>();
  state->instance = state_;
  state->handle = handle;
  state->ir = decode_wire(wire);  // cannot fail: the plugin decoded the same bytes
  Program out;
  out.state_ = std::move(state);
  return out;
}

std::vector<ByteVector> Backend::dispatch(const Program& program, std::span<const Bytes> inputs,
                                          const DispatchConfig& config) const {
  require_own(program, "dispatch");
  std::vector<ByteVector> outputs = detail::allocate_outputs(program, inputs);
  const std::vector<MutableBytes> spans = spans_of(outputs);
  const std::vector<std::size_t> written =
      run_into(program, inputs, spans, config, VYRE_OUTPUTS_DISCARDED_ON_FAILURE);
  for (std::size_t i = 0; i < outputs.size(); ++i) outputs[i].resize(written[i]);
  return outputs;
}

std::vector<std::size_t> Backend::dispatch_into(const Program& program, std::span<const Bytes> inputs,
                                                std::span<const MutableBytes> outputs,
                                                const DispatchConfig& config) const {
  return run_into(program, inputs, outputs, config, 0);
}

std::vector<std::size_t> Backend::run_into(const Program& program, std::span<const Bytes> inputs,
                                           std::span<const MutableBytes> outputs,
                                           const DispatchConfig& config, std::uint32_t output_flags) const {
  require_own(program, "dispatch");
  std::vector<vyre_host_input> in = detail::host_inputs(inputs);
  std::vector<vyre_host_output> out = detail::host_outputs(outputs);
  const vyre_dispatch_config abi_config = state_->config(config);
  const vyre_dispatch_args args{sizeof(vyre_dispatch_args), program.native(), &abi_config,
                                in.data(), in.size(), out.data(), out.size(), output_flags};
  state_->invoke("dispatch",
                 [&](vyre_error** e) { return state_->fns->dispatch(state_->handle, &args, e); });
  std::vector<std::size_t> written;
  for (const vyre_host_output& o : out) written.push_back(std::min(o.byte_len, o.capacity));
  return written;
}

TimedOutputs Backend::dispatch_timed(const Program& program, std::span<const Bytes> inputs,
                                     const DispatchConfig& config) const {
  require_own(program, "dispatch_timed");
  TimedOutputs result;
  result.outputs = detail::allocate_outputs(program, inputs);
  const std::vector<MutableBytes> spans = spans_of(result.outputs);
  std::vector<vyre_host_input> in = detail::host_inputs(inputs);
  std::vector<vyre_host_output> out = detail::host_outputs(spans);
  const vyre_dispatch_config abi_config = state_->config(config);
  const vyre_dispatch_args args{sizeof(vyre_dispatch_args), program.native(), &abi_config,
                                in.data(), in.size(), out.data(), out.size(), VYRE_OUTPUTS_DISCARDED_ON_FAILURE};
  vyre_timing timing{};
  timing.struct_size = sizeof timing;
  state_->invoke("dispatch_timed", [&](vyre_error** e) {
    return state_->fns->dispatch_timed(state_->handle, &args, &timing, e);
  });
  detail::trim_outputs(result.outputs, out);
  result.timing = detail::from_abi(timing);
  return result;
}

PendingDispatch Backend::dispatch_async(const Program& program, std::span<const Bytes> inputs,
                                        const DispatchConfig& config) const {
  require_own(program, "dispatch_async");
  std::vector<ByteVector> outputs = detail::allocate_outputs(program, inputs);
  PendingDispatch pending =
      start_async(program, inputs, spans_of(outputs), config, VYRE_OUTPUTS_DISCARDED_ON_FAILURE);
  // Moving the vector keeps each output's storage where the plugin is writing it.
  pending.state_->outputs = std::move(outputs);
  return pending;
}

PendingDispatch Backend::dispatch_async_into(const Program& program, std::span<const Bytes> inputs,
                                             std::span<const MutableBytes> outputs,
                                             const DispatchConfig& config) const {
  return start_async(program, inputs, outputs, config, 0);
}

PendingDispatch Backend::start_async(const Program& program, std::span<const Bytes> inputs,
                                     std::span<const MutableBytes> outputs, const DispatchConfig& config,
                                     std::uint32_t output_flags) const {
  require_own(program, "dispatch_async");
  auto state = std::make_shared<detail::PendingState>();
  state->instance = state_;
  state->program = program.state_;
  state->output_structs = detail::host_outputs(outputs);
  std::vector<vyre_host_input> in = detail::host_inputs(inputs);
  const vyre_dispatch_config abi_config = state_->config(config);
  const vyre_dispatch_args args{sizeof(vyre_dispatch_args), program.native(), &abi_config,
                                in.data(), in.size(), state->output_structs.data(),
                                state->output_structs.size(), output_flags};
  state_->invoke("dispatch_async", [&](vyre_error** e) {
    return state_->fns->dispatch_async(state_->handle, &args, &state->handle, e);
  });
  PendingDispatch pending;
  pending.state_ = std::move(state);
  return pending;
}

std::vector<Metric> Backend::metrics() const {
  std::size_t count = 0;
  state_->invoke("metrics_snapshot", [&](vyre_error** e) {
    return state_->fns->metrics_snapshot(state_->handle, nullptr, 0, &count, e);
  });
  std::vector<vyre_metric> raw(count + 8);  // room for counters that appear meanwhile
  for (vyre_metric& m : raw) m.struct_size = sizeof m;
  state_->invoke("metrics_snapshot", [&](vyre_error** e) {
    return state_->fns->metrics_snapshot(state_->handle, raw.data(), raw.size(), &count, e);
  });
  std::vector<Metric> out;
  for (std::size_t i = 0; i < std::min(count, raw.size()); ++i)
    out.push_back({raw[i].name ? raw[i].name : "", raw[i].value});
  return out;
}

void Backend::reset_metrics() const {
  state_->invoke("metrics_reset",
                 [&](vyre_error** e) { return state_->fns->metrics_reset(state_->handle, e); });
}

std::vector<AotFile> Backend::aot_emit(const vyre::Program& program, const AotOptions& options) const {
  return emit(*state_->fns, state_->handle, program, options);
}

std::vector<AotFile> Backend::aot_emit(const vyre_backend_fns* fns, const vyre::Program& program,
                                       const AotOptions& options) {
  if (fns == nullptr)
    fail(VYRE_ERR_INVALID_ARGUMENT, "aot_emit: the function table is NULL",
         "pass the vyre_backend_fns a plugin registered");
  return emit(*fns, nullptr, program, options);
}

}  // namespace vyre::host
