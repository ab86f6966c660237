// Plugins run inside the host process, and a plugin that calls exit() or quick_exit() ends the
// host with whatever status it chose: exit(0) from vyre_backend_register used to end `vyre
// backends` silently, as a success, with nothing printed.
//
// While a PluginExitGuard is alive on a thread, an exit() or quick_exit() made on that thread (by
// the plugin's code the guarded call runs) is reported on stderr, naming the plugin and the call,
// and the process ends with status kPluginExitStatus instead of the plugin's. The registry guards
// loading (dlopen with the library's static constructors) and vyre_backend_register; the host
// wrapper (vyre/backend.hpp) guards every call into an instance, create and destroy included.
//
// What it cannot catch: _exit(), a signal, a crash, or an exit from a thread the plugin started
// itself. Only running the plugin in another process covers those: verify plugins with
// VYRE_VERIFY_PLUGINS=1 or `vyre plugins verify` (docs/RELIABILITY.md).
#pragma once

namespace vyre {

// The exit status of a process a plugin tried to end (the tools' "failure").
inline constexpr int kPluginExitStatus = 1;

// Thread-compatible RAII scope; guards nest (the innermost names the call). Costs a thread-local
// store and a once-flag check: cheap enough for every dispatch.
class PluginExitGuard {
 public:
  // `plugin` and `call` must stay valid while the guard is alive.
  PluginExitGuard(const char* plugin, const char* call) noexcept;
  ~PluginExitGuard();
  PluginExitGuard(const PluginExitGuard&) = delete;
  PluginExitGuard& operator=(const PluginExitGuard&) = delete;

 private:
  const PluginExitGuard* previous_;
  const char* plugin_;
  const char* call_;

  friend void report_plugin_exit() noexcept;
};

}  // namespace vyre
