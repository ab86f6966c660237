// kit::dispatch_resident_after: VYRE_EXTENSION_NATIVE_STREAM's resident dispatch ordered after
// another library's stream (backend_abi.h).
#include "errors.hpp"
#include "instance.hpp"
#include "resident_dispatch.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::kit {

vyre_status dispatch_resident_after(vyre_backend* backend, const vyre_resident_dispatch_args* args,
                                    std::uint64_t native_stream, vyre_pending** out, vyre_error** error) noexcept {
  return detail::guard(error, [&] {
    std::shared_ptr<detail::Instance> instance = detail::find_instance(backend);
    if (out != nullptr) *out = nullptr;
    ResidentDispatch checked = detail::check_resident_dispatch(*instance, args);
    checked.after_native_stream = native_stream;
    detail::start_resident_dispatch(*instance, checked, out);
  });
}

}  // namespace vyre::kit
