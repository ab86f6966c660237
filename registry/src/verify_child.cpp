// The verifier child: load one plugin exactly as the registry does and report each stage to the
// host before entering it, so that a crash or a hang is attributed to the stage it happened in.
// Forked by the verifier supervisor (verify_supervisor.cpp) before main(), single-threaded; it
// relies on no namespace-scope object of the program.
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
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

class Reporter {
 public:
  explicit Reporter(int fd) : fd_(fd) {}

  void line(const std::string& text) const {
    const std::string out = text + "\n";
    std::size_t done = 0;
    while (done < out.size()) {
      const ssize_t n = ::write(fd_, out.data() + done, out.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // the host is gone: nothing left to tell
      done += static_cast<std::size_t>(n);
    }
  }
  void stage(std::string_view name) const { line("stage\t" + std::string(name)); }
  void rejected(PluginRejection code, std::string_view reason) const {
    line("rejected\t" + std::string(plugin_rejection_name(code)) + "\t" + report_field(reason));
  }

 private:
  int fd_;
};

void report_summary(const Reporter& report, const PluginInfo& info) {
  report.line("summary\t" + report_field(info.id) + "\t" + report_field(info.version) + "\t" +
              std::to_string(info.rank) + "\t" + std::to_string(info.capabilities) + "\t" +
              std::to_string(info.abi_major) + "\t" + std::to_string(info.abi_minor) + "\t" +
              std::to_string(info.op_ids.size()));
}

// A crashing plugin must not leave core files behind; nothing the plugin execs may inherit the
// report pipe; and fatal signals must end the process with that signal even where a sanitizer
// runtime installed handlers, so that the verdict names the signal in every build.
void prepare_process(int report_fd) {
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  ::fcntl(report_fd, F_SETFD, FD_CLOEXEC);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  for (const int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) ::sigaction(s, &default_action, nullptr);
}

// dlopen on its own first, so that a crash in the library's static constructors is told apart
// from one in vyre_backend_register. Returns the extra handle (the registry's load takes its own).
void* open_library(const Reporter& report, const std::string& plugin) {
  report.stage("load");
  if (void* handle = ::dlopen(plugin.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
  const char* why = ::dlerror();
  report.rejected(PluginRejection::load_failed,
                  "cannot load: " + std::string(why != nullptr ? why : "dlopen failed"));
  return nullptr;
}

void check_create(const Reporter& report, const LoadedPlugin& plugin) {
  report.stage("create");
  try {
    host::Backend backend = host::Backend::create(plugin.fns, plugin.keep_alive, {}, plugin.info.id);
    const vyre_device_profile profile = backend.device_profile();
    report.line("create\tok (" + report_field(profile.name) + ")");
  } catch (const std::exception& e) {
    report.line("create\tfailed: " + report_field(e.what()));
  }
}

// Returns false when the plugin was rejected (already reported).
bool verify(const Reporter& report, const VerifyRequest& request) {
  void* extra_handle = open_library(report, request.plugin);
  if (extra_handle == nullptr) return false;
  report.stage("register");
  LoadedPlugin loaded;
  try {
    auto sink = std::make_shared<LogSink>(stderr_log_sink(VYRE_LOG_INFO));
    loaded = load_plugin(request.plugin, sink);
  } catch (const Rejection& r) {
    report.rejected(r.code, r.reason);
    return false;
  }
  ::dlclose(extra_handle);  // the registry's handle keeps it loaded, as in a real load
  report_summary(report, loaded.info);
  if (request.mode == kVerifyModeCreate) check_create(report, loaded);
  // As when a registry goes away: the library is unloaded (its static destructors run).
  report.stage("unload");
  loaded = LoadedPlugin{};
  return true;
}

}  // namespace

int run_verify_child(const VerifyRequest& request) noexcept {
  prepare_process(request.report_fd);
  const Reporter report(request.report_fd);
  report.line("hello");
  try {
    verify(report, request);
  } catch (const std::exception& e) {
    report.rejected(PluginRejection::invalid_plugin, std::string("verification failed: ") + e.what());
  } catch (...) {
    report.rejected(PluginRejection::invalid_plugin,
                    "verification failed: a non-standard exception escaped the plugin");
  }
  report.line("done\t" + request.nonce);
  return 0;
}

}  // namespace vyre::registry_detail
