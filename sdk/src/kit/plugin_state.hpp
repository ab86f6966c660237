// What the kit remembers about the one plugin it is linked into: the PluginSpec given to
// register_backend (one spec per library), its op set, its function table, and the host's log
// callback.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "vyre/plugin_kit.hpp"

namespace vyre::kit::detail {

// The registered spec; throws VYRE_ERR_INTERNAL before registration.
const PluginSpec& plugin_spec();
// The spec's id, or "unregistered" (for messages; never throws).
std::string plugin_id() noexcept;
// Whether the plugin declares op `id`.
bool declares_op(std::string_view id);
// The ids of `ops` the plugin does not declare.
std::vector<std::string> undeclared_ops(const std::vector<std::string>& ops);
// Throw VYRE_ERR_UNSUPPORTED naming every op of `ops` the plugin does not declare.
void require_declared_ops(const std::vector<std::string>& ops);

// Install `spec` (kept by pointer), fill the op-id pointer array returned by op_id_pointers(), and
// keep `table` with the spec's extension chain as the table function_table() returns.
void install_spec(const PluginSpec& spec, const vyre_backend_fns& table);
const std::vector<const char*>& op_id_pointers();
// The installed table; lives as long as the library.
const vyre_backend_fns* function_table();

void install_host_log(vyre_log_fn log, void* user) noexcept;

}  // namespace vyre::kit::detail
