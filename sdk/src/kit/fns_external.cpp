// Function-table slots of ABI 1.1: external memory (resident_import, resident_export).
#include <string>

#include "call_helpers.hpp"
#include "entry_points.hpp"
#include "errors.hpp"
#include "instance.hpp"
#include "plugin_state.hpp"
#include "vyre/abi_structs.hpp"

namespace vyre::kit::detail {

namespace {

constexpr std::uint32_t kKnownExternalFlags = VYRE_EXTERNAL_READ_ONLY;

// Every check that needs no driver: flags, length, and the alignment the profile promises.
ImportRequest check_import(BackendImpl& backend, const vyre_external_memory& m) {
  if ((m.flags & ~kKnownExternalFlags) != 0)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         "vyre_external_memory.flags has unknown bits 0x" + std::to_string(m.flags & ~kKnownExternalFlags),
         "set only VYRE_EXTERNAL_READ_ONLY");
  if (m.byte_len == 0)
    fail(VYRE_ERR_INVALID_ARGUMENT, "vyre_external_memory.byte_len is 0",
         "import a buffer of at least one byte");
  vyre_device_profile profile{};
  profile.struct_size = sizeof profile;
  backend.device_profile(profile);
  const std::uint64_t alignment = profile.external_alignment;
  if (alignment == 0)
    fail(VYRE_ERR_UNSUPPORTED, "backend '" + plugin_id() + "' cannot import external memory",
         "copy the data into a buffer from resident_alloc with resident_upload instead");
  if (m.address % alignment != 0)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         "the imported address " + std::to_string(m.address) + " is not a multiple of " +
             std::to_string(alignment) + " bytes (vyre_device_profile.external_alignment)",
         "import memory aligned to external_alignment (a fresh allocation is), or copy it");
  return ImportRequest{m.kind, m.address, m.byte_len, (m.flags & VYRE_EXTERNAL_READ_ONLY) != 0};
}

}  // namespace

vyre_status resident_import(vyre_backend* backend, const vyre_external_memory* memory,
                            vyre_resident** out, vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    require_out_pointer(out, "resident_import");
    *out = nullptr;
    const vyre_external_memory m = abi::read_struct(memory, "vyre_external_memory");
    const ImportRequest checked = check_import(instance->backend(), m);
    std::shared_ptr<DeviceBuffer> buffer = instance->backend().resident_import(checked);
    if (!buffer || buffer->byte_len() != checked.byte_len)
      fail(VYRE_ERR_INTERNAL, "resident_import returned no buffer or one of the wrong size",
           "fix the plugin's resident_import");
    const std::uint64_t id = instance->residents.insert(buffer);
    // Only now is the import a success: from here the release callback is the buffer's to call.
    buffer->adopt_external(m.release, m.release_user, checked.read_only);
    *out = to_handle<vyre_resident>(id);
  });
}

vyre_status resident_export(vyre_backend* backend, vyre_resident* buffer, vyre_memory_export* out,
                            vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    abi::check_out_struct(out, "resident_export: vyre_memory_export");
    std::shared_ptr<DeviceBuffer> resident = instance->residents.get(from_handle(buffer));
    const MemoryLocation location = instance->backend().resident_export(*resident);
    vyre_memory_export full{};
    full.struct_size = sizeof full;
    full.kind = location.kind;
    full.dlpack_device_type = location.dlpack_device_type;
    full.device_id = location.device_id;
    full.flags = resident->read_only() ? VYRE_EXTERNAL_READ_ONLY : 0u;
    full.address = location.address;
    full.byte_len = resident->byte_len();
    abi::write_out_struct(full, out);
  });
}

}  // namespace vyre::kit::detail
