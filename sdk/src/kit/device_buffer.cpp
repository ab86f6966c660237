// DeviceBuffer: the release callback of imported memory.
#include "vyre/plugin_kit.hpp"

namespace vyre::kit {

DeviceBuffer::~DeviceBuffer() {
  if (release_ != nullptr) release_(release_user_);
}

void DeviceBuffer::adopt_external(vyre_release_fn release, void* release_user, bool read_only) noexcept {
  release_ = release;
  release_user_ = release_user;
  read_only_ = read_only;
}

}  // namespace vyre::kit
