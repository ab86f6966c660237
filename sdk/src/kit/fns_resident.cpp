// Function-table slots: resident buffers, resident dispatch and sequences.
#include <string>

#include "call_helpers.hpp"
#include "entry_points.hpp"
#include "errors.hpp"
#include "instance.hpp"
#include "resident_dispatch.hpp"
#include "vyre/abi_convert.hpp"
#include "vyre/abi_structs.hpp"

namespace vyre::kit::detail {

ResidentDispatch check_resident_dispatch(Instance& instance, const vyre_resident_dispatch_args* args) {
  const vyre_resident_dispatch_args a = abi::read_struct(args, "vyre_resident_dispatch_args");
  std::shared_ptr<const CompiledProgram> program = instance.programs.get(from_handle(a.program));
  return make_resident_dispatch(instance, std::move(program), abi::from_abi(a.config), a.bindings,
                                a.binding_count, false, "vyre_resident_dispatch_args");
}

void start_resident_dispatch(Instance& instance, const ResidentDispatch& checked, vyre_pending** out) {
  if (out == nullptr) {
    instance.backend().dispatch_resident(checked, true).reset();
    return;
  }
  auto entry = std::make_shared<PendingEntry>();
  entry->program = checked.program;
  entry->residents = residents_of(checked);
  entry->pending = instance.backend().dispatch_resident(checked, false);
  if (!entry->pending) entry->pending = std::make_unique<CompletedPending>();
  *out = to_handle<vyre_pending>(instance.pendings.insert(std::move(entry)));
}

namespace {

std::vector<ResidentDispatch> check_steps(Instance& instance, const vyre_sequence_step* steps,
                                          std::size_t count, std::string_view what) {
  abi::StridedArray<vyre_sequence_step> array(steps, count, what);
  std::vector<ResidentDispatch> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i)
    out.push_back(make_sequence_step(instance, array[i],
                                     std::string(what) + "[" + std::to_string(i) + "]"));
  return out;
}


}  // namespace

vyre_status resident_alloc(vyre_backend* backend, uint64_t byte_len, vyre_resident** out,
                           vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    require_out_pointer(out, "resident_alloc");
    *out = nullptr;
    std::shared_ptr<DeviceBuffer> buffer = instance->backend().resident_alloc(byte_len);
    if (!buffer || buffer->byte_len() != byte_len)
      fail(VYRE_ERR_INTERNAL, "resident_alloc returned no buffer or one of the wrong size",
           "fix the plugin's resident_alloc");
    *out = to_handle<vyre_resident>(instance->residents.insert(std::move(buffer)));
  });
}

vyre_status resident_free(vyre_backend* backend, vyre_resident* buffer, vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    std::shared_ptr<DeviceBuffer> taken = instance->residents.take_unless(
        from_handle(buffer), [](const DeviceBuffer& b) { return b.in_flight.load() > 0; });
    if (!taken)
      fail(VYRE_ERR_BUSY, "the resident buffer is used by a dispatch still in flight",
           "wait for the pending dispatch (pending_wait) before freeing the buffer");
    instance->backend().resident_free(*taken);
  });
}

vyre_status resident_byte_len(vyre_backend* backend, vyre_resident* buffer, uint64_t* out,
                              vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    require_out_pointer(out, "resident_byte_len");
    *out = instance->residents.get(from_handle(buffer))->byte_len();
  });
}

vyre_status resident_upload(vyre_backend* backend, const vyre_resident_write* writes, size_t count,
                            vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    const std::vector<CheckedWrite> checked = make_writes(*instance, writes, count);
    if (!checked.empty()) instance->backend().resident_upload(checked);
  });
}

vyre_status resident_download(vyre_backend* backend, const vyre_resident_read* reads, size_t count,
                              vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    const std::vector<CheckedRead> checked = make_reads(*instance, reads, count, "reads");
    if (!checked.empty()) instance->backend().resident_download(checked);
  });
}

vyre_status dispatch_resident(vyre_backend* backend, const vyre_resident_dispatch_args* args,
                              vyre_pending** out, vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    if (out != nullptr) *out = nullptr;
    start_resident_dispatch(*instance, check_resident_dispatch(*instance, args), out);
  });
}

vyre_status dispatch_resident_timed(vyre_backend* backend, const vyre_resident_dispatch_args* args,
                                    vyre_timing* out, vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    abi::check_out_struct(out, "dispatch_resident_timed: vyre_timing");
    const ResidentDispatch checked = check_resident_dispatch(*instance, args);
    abi::write_out_struct(to_abi_timing(instance->backend().dispatch_resident_timed(checked)), out);
  });
}

vyre_status sequence_run(vyre_backend* backend, const vyre_sequence_args* args, vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    const vyre_sequence_args a = abi::read_struct(args, "vyre_sequence_args");
    CheckedSequence sequence;
    sequence.prefix = check_steps(*instance, a.prefix, a.prefix_count, "prefix");
    sequence.repeated = check_steps(*instance, a.repeated, a.repeated_count, "repeated");
    sequence.repeat_count = a.repeat_count;
    sequence.reads = make_reads(*instance, a.reads, a.read_count, "vyre_sequence_args.reads");
    instance->backend().sequence_run(sequence);
  });
}

}  // namespace vyre::kit::detail
