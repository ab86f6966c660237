// vyre_error objects owned by the caller and released through the table.
#include "errors.hpp"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "plugin_state.hpp"

namespace vyre::kit::detail {

namespace {

struct OwnedError {
  vyre_error error{};
  std::string message;
};

// The errors handed out and not yet released, so that error_release never frees a pointer it
// does not own (a double release or a foreign pointer is ignored).
struct ErrorRegistry {
  std::mutex mutex;
  std::unordered_map<const vyre_error*, std::unique_ptr<OwnedError>> live;
};

// Lives until the library is unloaded (or after every C++ static destructor at exit), so errors
// reported or released from a host's static destructors still work.
ErrorRegistry* g_errors = nullptr;

ErrorRegistry& errors() {
  static ErrorRegistry* registry = g_errors = new ErrorRegistry;
  return *registry;
}

__attribute__((destructor)) void free_error_registry() {
  delete g_errors;  // with any errors the host never released
  g_errors = nullptr;
}

// Returned when even the error object cannot be allocated; never freed.
vyre_error g_out_of_memory{sizeof(vyre_error), VYRE_ERR_OUT_OF_MEMORY,
                           "host memory exhausted while reporting an error. Fix: free memory or "
                           "lower the workload's size."};

std::string internal_message(std::string_view what) {
  std::string message = "internal error in backend '" + plugin_id() + "': ";
  message += what.empty() ? std::string_view("unknown exception") : what;
  message += ". Fix: this is a bug in the backend plugin; report it with the program and the "
             "command that triggered it.";
  return message;
}

std::string out_of_memory_message() {
  return "backend '" + plugin_id() +
         "' ran out of host memory. Fix: free memory or lower the workload's size.";
}

vyre_status classify_and_report(vyre_error** error, vyre_status& code) {
  try {
    throw;
  } catch (const Error& e) {
    code = e.code();
    return report(error, code, e.what());
  } catch (const std::bad_alloc&) {
    code = VYRE_ERR_OUT_OF_MEMORY;
    return report(error, code, out_of_memory_message());
  } catch (const std::exception& e) {
    code = VYRE_ERR_INTERNAL;
    return report(error, code, internal_message(e.what()));
  } catch (...) {
    code = VYRE_ERR_INTERNAL;
    return report(error, code, internal_message("a non-standard exception was thrown"));
  }
}

}  // namespace

vyre_status report(vyre_error** error, vyre_status code, std::string_view message) noexcept {
  if (error == nullptr) return code;
  try {
    auto owned = std::make_unique<OwnedError>();
    owned->message = message;
    owned->error.struct_size = sizeof(vyre_error);
    owned->error.code = code;
    owned->error.message = owned->message.c_str();
    const vyre_error* key = &owned->error;
    ErrorRegistry& registry = errors();
    std::lock_guard lock(registry.mutex);
    registry.live.emplace(key, std::move(owned));
    *error = const_cast<vyre_error*>(key);
  } catch (...) {
    *error = &g_out_of_memory;
  }
  return code;
}

vyre_status report_current_exception(vyre_error** error) noexcept {
  vyre_status code = VYRE_ERR_INTERNAL;
  try {
    return classify_and_report(error, code);
  } catch (...) {  // composing the message failed (out of memory)
    return report(error, code == VYRE_OK ? VYRE_ERR_INTERNAL : code,
                  "a backend call failed and its message could not be composed. Fix: free memory "
                  "and retry.");
  }
}

void release_error(vyre_error* error) noexcept {
  if (error == nullptr || error == &g_out_of_memory) return;
  std::unique_ptr<OwnedError> owned;
  ErrorRegistry& registry = errors();
  std::lock_guard lock(registry.mutex);
  auto it = registry.live.find(error);
  if (it == registry.live.end()) return;
  owned = std::move(it->second);
  registry.live.erase(it);
}

}  // namespace vyre::kit::detail
