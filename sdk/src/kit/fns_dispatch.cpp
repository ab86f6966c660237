// Function-table slots: host dispatch (sync, async, timed) and pending handles (poll, wait,
// cancel, release).
#include <string>

#include "call_helpers.hpp"
#include "entry_points.hpp"
#include "errors.hpp"
#include "host_dispatch.hpp"
#include "instance.hpp"
#include "vyre/abi_convert.hpp"
#include "vyre/abi_structs.hpp"

namespace vyre::kit::detail {

namespace {

struct CheckedDispatch {
  vyre_dispatch_args args;
  HostDispatch dispatch;
};

CheckedDispatch check_dispatch(Instance& instance, const vyre_dispatch_args* args) {
  CheckedDispatch out{abi::read_struct(args, "vyre_dispatch_args"), {}};
  std::shared_ptr<const CompiledProgram> program = instance.programs.get(from_handle(out.args.program));
  out.dispatch = make_host_dispatch(std::move(program), abi::from_abi(out.args.config),
                                    out.args.inputs, out.args.input_count, out.args.outputs,
                                    out.args.output_count);
  // A 1.0 caller's struct ends before output_flags: read_struct left it zero.
  out.dispatch.outputs_discarded_on_failure = (out.args.output_flags & VYRE_OUTPUTS_DISCARDED_ON_FAILURE) != 0;
  return out;
}

}  // namespace

vyre_status dispatch(vyre_backend* backend, const vyre_dispatch_args* args, vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    CheckedDispatch checked = check_dispatch(*instance, args);
    instance->backend().dispatch(checked.dispatch);
    set_output_lengths(checked.args.outputs, checked.dispatch);
  });
}

vyre_status dispatch_async(vyre_backend* backend, const vyre_dispatch_args* args,
                           vyre_pending** out, vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    require_out_pointer(out, "dispatch_async");
    *out = nullptr;
    CheckedDispatch checked = check_dispatch(*instance, args);
    auto entry = std::make_shared<PendingEntry>();
    entry->program = checked.dispatch.program;
    entry->pending = instance->backend().dispatch_async(checked.dispatch);
    if (!entry->pending) entry->pending = std::make_unique<CompletedPending>();
    // Lengths are known now; set them at submission (the out array need not outlive this call).
    set_output_lengths(checked.args.outputs, checked.dispatch);
    *out = to_handle<vyre_pending>(instance->pendings.insert(std::move(entry)));
  });
}

vyre_status dispatch_timed(vyre_backend* backend, const vyre_dispatch_args* args, vyre_timing* out,
                           vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    abi::check_out_struct(out, "dispatch_timed: vyre_timing");
    CheckedDispatch checked = check_dispatch(*instance, args);
    const Timing timing = instance->backend().dispatch_timed(checked.dispatch);
    set_output_lengths(checked.args.outputs, checked.dispatch);
    abi::write_out_struct(to_abi_timing(timing), out);
  });
}

vyre_status pending_poll(vyre_backend* backend, vyre_pending* pending, int32_t* done,
                         vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    require_out_pointer(done, "pending_poll");
    *done = 0;
    std::shared_ptr<PendingEntry> entry = instance->pendings.get(from_handle(pending));
    try {
      *done = entry->pending->poll() ? 1 : 0;
    } catch (...) {
      *done = 1;  // finished, with the error reported here
      throw;
    }
  });
}

vyre_status pending_wait(vyre_backend* backend, vyre_pending* pending, uint64_t timeout_ns,
                         vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    std::shared_ptr<PendingEntry> entry = instance->pendings.get(from_handle(pending));
    if (entry->pending->wait(timeout_ns)) return;
    fail(VYRE_ERR_TIMEOUT,
         "the dispatch is still running after " + std::to_string(timeout_ns) + " ns",
         "wait longer (UINT64_MAX waits for ever) or poll again later");
  });
}

vyre_status pending_cancel(vyre_backend* backend, vyre_pending* pending, vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    std::shared_ptr<PendingEntry> entry = instance->pendings.get(from_handle(pending));
    entry->pending->cancel();
  });
}

vyre_status pending_release(vyre_backend* backend, vyre_pending* pending, vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    std::shared_ptr<PendingEntry> entry = instance->pendings.take(from_handle(pending));
    entry->pending->wait(UINT64_MAX);  // the work's error, if any, is reported; released either way
  });
}

}  // namespace vyre::kit::detail
