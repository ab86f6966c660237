// kit::guarded_call: the kit's exception-to-vyre_error guard, for a plugin's extension functions.
#include "errors.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::kit {

vyre_status guarded_call(vyre_error** error, const std::function<void()>& body) noexcept {
  return detail::guard(error, [&] { body(); });
}

}  // namespace vyre::kit
