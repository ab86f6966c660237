// Loading and validating one plugin.
#include "loader.hpp"

#include <algorithm>
#include <boost/dll/shared_library.hpp>
#include <cstring>
#include <string>

#include "log_routes.hpp"
#include "vyre/abi_structs.hpp"
#include "vyre/abi_table.hpp"
#include "vyre/ops.hpp"
#include "vyre/plugin_exit_guard.hpp"
#include "vyre/printable.hpp"

namespace vyre::registry_detail {

namespace {

constexpr const char* kHostName = "vyre-registry 0.1.0";
constexpr std::size_t kMaxOps = 1u << 20;

// The library and the host's copy of its function table, kept alive together.
struct PluginLibrary {
  boost::dll::shared_library library;  // first member: unloaded after everything else
  std::shared_ptr<LogSink> sink;       // keeps the plugin's log route working while loaded
  vyre_backend_fns fns{};
};

[[noreturn]] void reject(PluginRejection code, std::string reason) {
  std::replace(reason.begin(), reason.end(), '\n', ' ');
  throw Rejection{std::move(reason), code};
}

// The dlerror text inside Boost.DLL's message, or the whole message.
std::string load_error_text(const std::string& what) {
  const std::string marker = "dlerror system message: ";
  const std::size_t at = what.find(marker);
  if (at == std::string::npos) return what;
  std::string text = what.substr(at + marker.size());
  const std::size_t close = text.rfind(')');
  if (close != std::string::npos) text.erase(close);
  return text;
}

boost::dll::shared_library open_library(const std::filesystem::path& path) {
  try {
    return boost::dll::shared_library(
        path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    reject(PluginRejection::load_failed, "cannot load: " + load_error_text(e.what()));
  }
}

bool valid_id(const char* id) {
  if (id == nullptr || *id == '\0') return false;
  for (const char* c = id; *c; ++c)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) return false;
  return std::strlen(id) <= 64;
}

// At most `max` bytes of a plugin-provided string, control characters escaped, for messages.
std::string clip(const char* text, std::size_t max = 200) { return printable(text, max); }

void check_status(vyre_status status, const vyre_backend_info& info) {
  if (status == VYRE_OK) return;
  std::string reason = "registration failed (" + std::string(status_name(status)) + ")";
  const bool has_failure = info.struct_size >= abi::min_size<vyre_backend_info>();
  reason += has_failure && info.failure ? ": " + clip(info.failure, 400) : ": no reason given";
  reject(PluginRejection::register_failed, reason);
}

void check_info_header(const vyre_backend_info& info) {
  if (info.struct_size < abi::min_size<vyre_backend_info>())
    reject(PluginRejection::struct_size, "vyre_backend_info.struct_size " + std::to_string(info.struct_size) +
           " is below the ABI 1.0 size " + std::to_string(abi::min_size<vyre_backend_info>()));
  if (info.abi_major != VYRE_ABI_VERSION_MAJOR)
    reject(PluginRejection::abi_major, "built for ABI " + std::to_string(info.abi_major) + "." + std::to_string(info.abi_minor) +
           "; this host speaks ABI " + std::to_string(VYRE_ABI_VERSION_MAJOR) + ".x");
  if (!valid_id(info.id))
    reject(PluginRejection::bad_id, "invalid id '" + clip(info.id, 64) + "' (an id is 1 to 64 characters of [a-z0-9_])");
}

// The host's copy of the plugin's table: the bytes its struct_size covers (at most the host's
// own size), the rest zero, struct_size = the bytes copied. Every slot those bytes hold must be
// non-NULL; members beyond them are absent (abi::table_has) and never called.
vyre_backend_fns copy_table(const vyre_backend_fns* fns) {
  if (fns == nullptr) reject(PluginRejection::null_slot, "the function table (vyre_backend_info.fns) is NULL");
  const std::size_t size = abi::struct_size_of(fns);
  if (size < abi::min_size<vyre_backend_fns>())
    reject(PluginRejection::struct_size, "vyre_backend_fns.struct_size " + std::to_string(size) + " is below the ABI 1.0 size " +
           std::to_string(abi::min_size<vyre_backend_fns>()));
  vyre_backend_fns table{};
  const std::size_t covered = std::min(size, sizeof table);
  std::memcpy(&table, fns, covered);
  table.struct_size = covered;
  for (const abi::TableMemberInfo& member : abi::kTableMembers) {
    if (!member.is_slot || member.end > covered) continue;
    void* slot = nullptr;
    std::memcpy(&slot, reinterpret_cast<const unsigned char*>(&table) + member.offset, sizeof slot);
    if (slot == nullptr) reject(PluginRejection::null_slot, "function table slot '" + std::string(member.name) + "' is NULL");
  }
  return table;
}

std::vector<std::string> read_ops(const vyre_backend_info& info) {
  if (info.op_count > kMaxOps)
    reject(PluginRejection::bad_op_list, "declares " + std::to_string(info.op_count) + " op ids (more than any catalog has)");
  if (info.op_count > 0 && info.op_ids == nullptr)
    reject(PluginRejection::bad_op_list, "op_ids is NULL but op_count is " + std::to_string(info.op_count));
  std::vector<std::string> ops;
  std::vector<std::string> unknown;
  for (std::size_t i = 0; i < info.op_count; ++i) {
    const char* op = info.op_ids[i];
    if (op == nullptr) reject(PluginRejection::bad_op_list, "op_ids[" + std::to_string(i) + "] is NULL");
    if (find_op(op) == nullptr) unknown.push_back(clip(op, 64));
    ops.emplace_back(op);
  }
  if (!unknown.empty()) {
    std::string list;
    for (std::size_t i = 0; i < unknown.size() && i < 8; ++i) list += (i ? ", " : "") + unknown[i];
    if (unknown.size() > 8) list += ", ... (" + std::to_string(unknown.size() - 8) + " more)";
    reject(PluginRejection::unknown_op, "unknown op ids (not in this host's op catalog): " + list);
  }
  std::sort(ops.begin(), ops.end());
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  return ops;
}

}  // namespace

LoadedPlugin load_plugin(const std::filesystem::path& path, const std::shared_ptr<LogSink>& sink) {
  auto library = std::make_shared<PluginLibrary>();
  const std::string file = path.string();  // names the plugin if it ends the process while loading
  {
    const PluginExitGuard guard(file.c_str(), "its static constructors (dlopen)");
    library->library = open_library(path);
  }
  library->sink = sink;
  if (!library->library.has(VYRE_REGISTER_SYMBOL))
    reject(PluginRejection::no_entry_point, std::string("missing symbol ") + VYRE_REGISTER_SYMBOL +
           " (not a vyre plugin, or it was built without VYRE_PLUGIN_EXPORT)");
  auto& register_fn = library->library.get<vyre_status(const vyre_host_info*, vyre_backend_info*)>(
      VYRE_REGISTER_SYMBOL);

  LogRoute* route = new_log_route(path.filename().string(), sink);
  const vyre_host_info host{sizeof(vyre_host_info), VYRE_ABI_VERSION_MAJOR, VYRE_ABI_VERSION_MINOR,
                            kHostName, &plugin_log, route};
  vyre_backend_info info{};
  info.struct_size = sizeof info;
  vyre_status status = VYRE_ERR_INTERNAL;
  try {
    const PluginExitGuard guard(file.c_str(), VYRE_REGISTER_SYMBOL);
    status = register_fn(&host, &info);
  } catch (...) {  // a plugin bug: no C++ exception may cross the ABI; reject, never propagate
    reject(PluginRejection::exception, "vyre_backend_register let a C++ exception escape (no exception may cross the C ABI)");
  }
  info.struct_size = std::min(info.struct_size, sizeof info);
  check_status(status, info);
  check_info_header(info);
  set_route_source(route, info.id);
  library->fns = copy_table(info.fns);

  LoadedPlugin loaded;
  loaded.info.id = info.id;
  loaded.info.version = info.version ? clip(info.version, 64) : "";
  loaded.info.rank = info.rank;
  loaded.info.capabilities = info.capabilities;
  loaded.info.op_ids = read_ops(info);
  loaded.info.abi_major = info.abi_major;
  loaded.info.abi_minor = info.abi_minor;
  loaded.info.path = path;
  loaded.fns = &library->fns;
  loaded.keep_alive = std::move(library);
  return loaded;
}

}  // namespace vyre::registry_detail
