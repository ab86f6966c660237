// register_backend: fill vyre_backend_info from a PluginSpec and install the kit's table.
#include "entry_points.hpp"
#include "plugin_state.hpp"
#include "vyre/abi_structs.hpp"

namespace vyre::kit {

namespace {

// Every slot points at the kit's function of the same name; the data members start empty.
vyre_backend_fns make_function_table() {
  vyre_backend_fns table{};
  table.struct_size = sizeof table;
#define VYRE_KIT_INSTALL_SLOT(ret, name, params) table.name = &detail::name;
#define VYRE_KIT_NO_FIELD(type, name)
  VYRE_BACKEND_FNS(VYRE_KIT_INSTALL_SLOT, VYRE_KIT_NO_FIELD)
#undef VYRE_KIT_INSTALL_SLOT
#undef VYRE_KIT_NO_FIELD
  return table;
}


vyre_backend_info base_info() {
  vyre_backend_info info{};
  info.struct_size = sizeof info;
  info.abi_major = VYRE_ABI_VERSION_MAJOR;
  info.abi_minor = VYRE_ABI_VERSION_MINOR;
  return info;
}

vyre_status refuse(vyre_backend_info* info, vyre_status code, const char* failure) noexcept {
  vyre_backend_info full = base_info();
  full.failure = failure;
  abi::write_out_struct(full, info);
  return code;
}

// Nullptr when the host is acceptable, else a static reason.
const char* host_problem(const vyre_host_info* host) noexcept {
  if (host == nullptr) return nullptr;
  if (abi::struct_size_of(host) < abi::min_size<vyre_host_info>())
    return "the host's vyre_host_info is smaller than ABI 1.0. Fix: rebuild the host against "
           "vyre/backend_abi.h 1.x.";
  if (host->abi_major != VYRE_ABI_VERSION_MAJOR)
    return "the host speaks another vyre ABI major version than this plugin (built for 1). Fix: "
           "rebuild the plugin and the host against the same vyre/backend_abi.h major version.";
  return nullptr;
}

}  // namespace

vyre_status register_backend(const PluginSpec& spec, const vyre_host_info* host,
                             vyre_backend_info* info) noexcept {
  if (info == nullptr) return VYRE_ERR_INVALID_ARGUMENT;
  if (abi::struct_size_of(info) < abi::min_size<vyre_backend_info>()) return VYRE_ERR_ABI;
  if (const char* problem = host_problem(host)) return refuse(info, VYRE_ERR_ABI, problem);
  try {
    if (host != nullptr) detail::install_host_log(host->log, host->log_user);
    detail::install_spec(spec, make_function_table());
    vyre_backend_info full = base_info();
    full.id = spec.id.c_str();
    full.version = spec.version.c_str();
    full.rank = spec.rank;
    full.capabilities = spec.capabilities;
    full.op_ids = detail::op_id_pointers().data();
    full.op_count = detail::op_id_pointers().size();
    full.fns = detail::function_table();
    abi::write_out_struct(full, info);
    return VYRE_OK;
  } catch (...) {
    return refuse(info, VYRE_ERR_OUT_OF_MEMORY,
                  "the plugin ran out of memory while registering. Fix: free memory and retry.");
  }
}

}  // namespace vyre::kit
