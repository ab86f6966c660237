// Raw (kit-less) plugins that are wrong in one way each; BAD_KIND picks which:
//   1  exports no vyre_backend_register
//   2  registers with ABI major 2
//   3  reports a vyre_backend_info.struct_size below the 1.0 size
//   4  returns an error from registration, with a failure text
#include <cstring>

#include "vyre/backend_abi.h"

#if BAD_KIND == 1

extern "C" VYRE_PLUGIN_EXPORT int vyre_not_the_register_symbol(void) { return 7; }

#else

extern "C" VYRE_PLUGIN_EXPORT vyre_status vyre_backend_register(const vyre_host_info*,
                                                                vyre_backend_info* info) {
  std::memset(reinterpret_cast<char*>(info) + sizeof(size_t), 0, sizeof(*info) - sizeof(size_t));
  info->struct_size = sizeof(*info);
  info->abi_major = VYRE_ABI_VERSION_MAJOR;
  info->id = "t_bad";
  info->version = "0";
#if BAD_KIND == 2
  info->abi_major = 2;
  return VYRE_OK;
#elif BAD_KIND == 3
  info->struct_size = 16;
  return VYRE_OK;
#elif BAD_KIND == 4
  info->failure = "the test plugin refuses to register. Fix: nothing, this is a test.";
  return VYRE_ERR_NO_DEVICE;
#endif
}

#endif
