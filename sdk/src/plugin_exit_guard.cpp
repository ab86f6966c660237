#include "vyre/plugin_exit_guard.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "vyre/printable.hpp"

namespace vyre {
namespace {

thread_local const PluginExitGuard* t_innermost = nullptr;

}  // namespace

// The atexit/at_quick_exit handler: runs on the thread that called exit(). Not in a signal
// handler, so it may allocate and flush.
void report_plugin_exit() noexcept {
  const PluginExitGuard* guard = t_innermost;
  if (guard == nullptr) return;  // an ordinary exit
  try {
    const std::string message =
        "vyre: error: plugin " + printable(guard->plugin_, 255) + " ended the process from " + guard->call_ +
        " (it called exit() or quick_exit(); a plugin must return an error instead). Fix: remove the plugin from "
        "the plugin path or report it to its authors; `vyre plugins verify` checks plugins in a child process.\n";
    std::fflush(nullptr);  // what the host printed so far
    (void)!::write(STDERR_FILENO, message.data(), message.size());
  } catch (...) {
  }
  ::_exit(kPluginExitStatus);  // skip the plugin's chosen status and the rest of exit()
}

PluginExitGuard::PluginExitGuard(const char* plugin, const char* call) noexcept
    : previous_(t_innermost), plugin_(plugin != nullptr ? plugin : "(unnamed)"), call_(call) {
  static std::once_flag installed;
  std::call_once(installed, [] {
    std::atexit([] { report_plugin_exit(); });
    std::at_quick_exit([] { report_plugin_exit(); });
  });
  t_innermost = this;
}

PluginExitGuard::~PluginExitGuard() { t_innermost = previous_; }

}  // namespace vyre
