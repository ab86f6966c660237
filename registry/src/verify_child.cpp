// The child side of plugin verification: load one plugin exactly as the registry does and report
// each stage to the parent before entering it, so that a crash or a hang is attributed to the
// stage it happened in. Runs from a load-time hook before main() (see verify.cpp), in a freshly
// exec'ed, single-threaded process; it relies on no namespace-scope object of the program.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <exception>
#include <string>

#include "loader.hpp"
#include "verify_protocol.hpp"
#include "vyre/backend.hpp"
#include "vyre/registry_log.hpp"

namespace vyre::registry_detail {

namespace {

void report(const std::string& line) {
  std::string text = line + "\n";
  const char* at = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(kVerifyReportFd, at, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone: nothing left to tell
    at += n;
    left -= static_cast<std::size_t>(n);
  }
}

void report_stage(std::string_view stage) { report("stage\t" + std::string(stage)); }

void report_summary(const PluginInfo& info) {
  report("summary\t" + report_field(info.id) + "\t" + report_field(info.version) + "\t" +
         std::to_string(info.rank) + "\t" + std::to_string(info.capabilities) + "\t" +
         std::to_string(info.abi_major) + "\t" + std::to_string(info.abi_minor) + "\t" +
         std::to_string(info.op_ids.size()));
}

// A crashing plugin must not leave core files behind, and nothing the plugin execs may inherit
// the report pipe.
void prepare_process() {
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  ::fcntl(kVerifyReportFd, F_SETFD, FD_CLOEXEC);
}

// dlopen on its own first, so that a crash in the library's static constructors is told apart
// from one in vyre_backend_register. The handle stays open (the registry's load reuses it).
bool open_library(const char* plugin) {
  report_stage("load");
  if (::dlopen(plugin, RTLD_NOW | RTLD_LOCAL) != nullptr) return true;
  const char* why = ::dlerror();
  report("rejected\tcannot load: " + report_field(why != nullptr ? why : "dlopen failed"));
  return false;
}

void check_create(const LoadedPlugin& plugin) {
  report_stage("create");
  try {
    host::Backend backend =
        host::Backend::create(plugin.fns, plugin.keep_alive, {}, plugin.info.id);
    const vyre_device_profile profile = backend.device_profile();
    report("create\tok (" + report_field(profile.name) + ")");
  } catch (const std::exception& e) {
    report("create\tfailed: " + report_field(e.what()));
  }
}

void verify(const char* plugin, std::string_view mode) {
  if (!open_library(plugin)) return;
  report_stage("register");
  LoadedPlugin loaded;
  try {
    auto sink = std::make_shared<LogSink>(stderr_log_sink(VYRE_LOG_INFO));
    loaded = load_plugin(plugin, sink);
  } catch (const Rejection& r) {
    report("rejected\t" + report_field(r.reason));
    return;
  }
  report_summary(loaded.info);
  if (mode == kVerifyModeCreate) check_create(loaded);
}

}  // namespace

int run_verify_child(const char* plugin, std::string_view mode) noexcept {
  prepare_process();
  report("hello");
  try {
    verify(plugin, mode);
  } catch (const std::exception& e) {
    report("rejected\t" + report_field(std::string("verification failed: ") + e.what()));
  } catch (...) {
    report("rejected\tverification failed: a non-standard exception escaped the plugin");
  }
  report("done");
  return 0;
}

}  // namespace vyre::registry_detail
