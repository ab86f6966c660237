// Backend::devices and dispatch_resident_shard: device enumeration and one device's share of a
// group dispatch, through the plugin's VYRE_EXTENSION_DEVICE_GROUP extension.
#include <string>

#include "backend_state.hpp"

namespace vyre::host {

namespace {

// More devices than any host has: a count above it is a plugin bug, not a loop to run.
constexpr std::uint32_t kMaxDevices = 4096;

}  // namespace

std::vector<vyre_device_profile> Backend::devices() const {
  const detail::InstanceState& instance = *state_;
  const vyre_device_group_extension* group = detail::device_group(instance.fns);
  if (group == nullptr) return {device_profile()};
  std::uint32_t count = 0;
  instance.invoke("device_count", [&](vyre_error** e) { return group->device_count(&count, e); });
  if (count > kMaxDevices) {
    fail(VYRE_ERR_INTERNAL, instance.label + ": device_count reported " + std::to_string(count) + " devices",
         "this is a bug in the backend plugin; report it");
  }
  std::vector<vyre_device_profile> out;
  for (std::uint32_t ordinal = 0; ordinal < count; ++ordinal) {
    vyre_device_profile profile{};
    profile.struct_size = sizeof profile;
    instance.invoke("device_describe", [&](vyre_error** e) {
      return group->device_describe(static_cast<std::int32_t>(ordinal), &profile, e);
    });
    out.push_back(profile);
  }
  return out;
}

}  // namespace vyre::host
