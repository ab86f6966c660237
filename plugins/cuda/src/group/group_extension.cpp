#include "group/group_extension.hpp"

#include "group/device_list.hpp"
#include "vyre/abi_structs.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::cuda {
namespace {

vyre_status device_count(uint32_t* out, vyre_error** error) {
  return kit::guarded_call(error, [&] {
    if (out == nullptr) fail(VYRE_ERR_INVALID_ARGUMENT, "device_count: out is NULL", "pass where the count should go");
    *out = visible_device_count();
  });
}

vyre_status device_describe(int32_t ordinal, vyre_device_profile* out, vyre_error** error) {
  return kit::guarded_call(error, [&] {
    abi::check_out_struct(out, "vyre_device_profile");
    vyre_device_profile full{};
    full.struct_size = sizeof full;
    describe_device(ordinal, full);
    abi::write_out_struct(full, out);
  });
}

const vyre_device_group_extension kExtension{
    {sizeof(vyre_device_group_extension), VYRE_EXTENSION_DEVICE_GROUP, 0, nullptr},
    device_count,
    device_describe,
    kit::dispatch_resident_shard,  // the runtime's dispatch_resident honours ResidentDispatch::shard
};

}  // namespace

const vyre_extension* device_group_extension() { return &kExtension.base; }

}  // namespace vyre::cuda
