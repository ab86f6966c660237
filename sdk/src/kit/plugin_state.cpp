// The kit's per-library state.
#include "plugin_state.hpp"

#include <atomic>
#include <mutex>
#include <unordered_set>

#include "vyre/error.hpp"

namespace vyre::kit::detail {

namespace {

struct State {
  std::mutex mutex;
  const PluginSpec* spec = nullptr;
  std::unordered_set<std::string> ops;
  std::vector<const char*> op_pointers;
  vyre_backend_fns table{};
  std::atomic<vyre_log_fn> log{nullptr};
  std::atomic<void*> log_user{nullptr};
};

// Lives until the library is unloaded (or after every C++ static destructor at exit).
State* g_state = nullptr;

State& state() {
  static State* s = g_state = new State;
  return *s;
}

__attribute__((destructor)) void free_state() {
  delete g_state;
  g_state = nullptr;
}

std::string join(const std::vector<std::string>& items, std::size_t limit) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < limit; ++i) {
    if (i) out += ", ";
    out += items[i];
  }
  if (items.size() > limit) out += ", ... (" + std::to_string(items.size() - limit) + " more)";
  return out;
}

}  // namespace

const PluginSpec& plugin_spec() {
  const PluginSpec* spec = state().spec;
  if (spec == nullptr)
    fail(VYRE_ERR_INTERNAL, "the plugin kit was called before vyre_backend_register",
         "call register_backend from vyre_backend_register before using the function table");
  return *spec;
}

std::string plugin_id() noexcept {
  try {
    const PluginSpec* spec = state().spec;
    return spec ? spec->id : std::string("unregistered");
  } catch (...) {
    return {};
  }
}

bool declares_op(std::string_view id) {
  plugin_spec();
  return state().ops.count(std::string(id)) != 0;
}

std::vector<std::string> undeclared_ops(const std::vector<std::string>& ops) {
  std::vector<std::string> missing;
  for (const std::string& op : ops)
    if (!declares_op(op)) missing.push_back(op);
  return missing;
}

void require_declared_ops(const std::vector<std::string>& ops) {
  const std::vector<std::string> missing = undeclared_ops(ops);
  if (missing.empty()) return;
  fail(VYRE_ERR_UNSUPPORTED,
       "backend '" + plugin_id() + "' does not support " + std::to_string(missing.size()) +
           " op(s) the program uses: " + join(missing, 12),
       "run the program on a backend that declares these ops (see `vyre ops --backend ID`), or "
       "let the registry route it");
}

void install_spec(const PluginSpec& spec, const vyre_backend_fns& table) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (s.spec == &spec) return;
  s.table = table;
  s.table.extensions = spec.extensions;
  s.ops.clear();
  s.op_pointers.clear();
  for (const std::string& id : spec.op_ids) {
    s.ops.insert(id);
    s.op_pointers.push_back(id.c_str());
  }
  s.spec = &spec;
}

const std::vector<const char*>& op_id_pointers() { return state().op_pointers; }

const vyre_backend_fns* function_table() { return &state().table; }

void install_host_log(vyre_log_fn log, void* user) noexcept {
  State& s = state();
  s.log_user.store(user);
  s.log.store(log);
}

}  // namespace vyre::kit

namespace vyre::kit {

void log(int level, const std::string& message) noexcept {
  detail::State& s = detail::state();
  vyre_log_fn fn = s.log.load();
  if (fn == nullptr) return;
  fn(s.log_user.load(), level, message.c_str());
}

}  // namespace vyre::kit
