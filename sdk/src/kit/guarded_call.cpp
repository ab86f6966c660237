// kit::guarded_call, backend_of, resident_of: what a plugin's extension functions need from the kit
// (the exception-to-vyre_error guard, and the objects behind its handles).
#include "errors.hpp"
#include "handles.hpp"
#include "instance.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::kit {

vyre_status guarded_call(vyre_error** error, const std::function<void()>& body) noexcept {
  return detail::guard(error, [&] { body(); });
}

std::shared_ptr<BackendImpl> backend_of(const vyre_backend* backend) {
  std::shared_ptr<detail::Instance> instance = detail::find_instance(backend);
  BackendImpl* impl = &instance->backend();
  return std::shared_ptr<BackendImpl>(std::move(instance), impl);
}

std::shared_ptr<DeviceBuffer> resident_of(const vyre_backend* backend, const vyre_resident* buffer) {
  return detail::find_instance(backend)->residents.get(detail::from_handle(buffer));
}

}  // namespace vyre::kit
