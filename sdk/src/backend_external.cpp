// The host wrapper's ABI 1.1 calls: external memory, cancellation, extensions, and what an
// ABI 1.0 plugin's table lacks.
#include <memory>

#include "backend_state.hpp"
#include "vyre/abi_convert.hpp"
#include "vyre/abi_structs.hpp"

namespace vyre::host {

namespace detail {

void InstanceState::require(abi::TableMember member) const {
  if (abi::table_has(*fns, member)) return;
  fail(VYRE_ERR_UNSUPPORTED,
       "backend '" + label + "' speaks ABI 1.0, whose function table has no " +
           std::string(abi::table_member(member).name) + " (ABI 1.1)",
       "rebuild the plugin against vyre/backend_abi.h 1.1, or do without this call");
}

vyre_dispatch_config InstanceState::config(const DispatchConfig& config) const {
  if (config.time_limit_ns) require(abi::TableMember::pending_cancel);  // the 1.1 table end
  return abi::to_abi(config);
}

}  // namespace detail

namespace {

// The caller's release callback, owned by the plugin from a successful import until it calls it.
void call_release(void* user) {
  std::unique_ptr<std::function<void()>> release(static_cast<std::function<void()>*>(user));
  (*release)();
}

}  // namespace

ResidentBuffer Backend::import_memory(ExternalMemory memory) const {
  const detail::InstanceState& instance = *state_;
  instance.require(abi::TableMember::resident_import);
  std::unique_ptr<std::function<void()>> release;
  if (memory.release) release = std::make_unique<std::function<void()>>(std::move(memory.release));
  vyre_external_memory m{};
  m.struct_size = sizeof m;
  m.kind = memory.kind;
  m.flags = memory.read_only ? VYRE_EXTERNAL_READ_ONLY : 0u;
  m.address = memory.address;
  m.byte_len = memory.byte_len;
  m.release = release ? &call_release : nullptr;
  m.release_user = release.get();
  vyre_resident* handle = nullptr;
  instance.invoke("resident_import", [&](vyre_error** e) {
    return instance.fns->resident_import(instance.handle, &m, &handle, e);
  });
  release.release();  // the plugin calls it now (exactly once)
  return wrap_resident(handle, memory.byte_len);
}

ExportedMemory Backend::export_memory(const ResidentBuffer& buffer) const {
  const detail::InstanceState& instance = *state_;
  instance.require(abi::TableMember::resident_export);
  require_own(buffer, "export_memory");
  vyre_memory_export out{};
  out.struct_size = sizeof out;
  instance.invoke("resident_export", [&](vyre_error** e) {
    return instance.fns->resident_export(instance.handle, buffer.native(), &out, e);
  });
  abi::require_min_size<vyre_memory_export>(out.struct_size, "resident_export: vyre_memory_export");
  return ExportedMemory{out.kind,    out.dlpack_device_type, out.device_id,
                        out.address, out.byte_len,           (out.flags & VYRE_EXTERNAL_READ_ONLY) != 0};
}

std::uint32_t Backend::abi_minor() const {
  return abi::table_has(*state_->fns, abi::TableMember::pending_cancel) ? 1 : 0;
}

const vyre_extension* Backend::extension(std::uint32_t type) const {
  return vyre_find_extension(state_->fns, type);
}

void PendingDispatch::cancel() const {
  const detail::InstanceState& instance = *state_->instance;
  instance.require(abi::TableMember::pending_cancel);
  instance.invoke("pending_cancel", [&](vyre_error** e) {
    return instance.fns->pending_cancel(instance.handle, state_->handle, e);
  });
}

}  // namespace vyre::host
