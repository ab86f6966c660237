// Test plugins that misbehave in one way each, for child-process verification. HOSTILE_KIND picks:
//   good            registers and creates (a kit backend that compiles nothing)
//   nodevice        registers; create fails cleanly with VYRE_ERR_NO_DEVICE
//   segv_register   vyre_backend_register writes through a wild pointer (SIGSEGV)
//   abort_register  vyre_backend_register calls abort() (SIGABRT)
//   hang_register   vyre_backend_register never returns; it also starts a grandchild that hangs.
//                   Both write their pid to $VYRE_HOSTILE_PID_DIR/<id>.{child,grandchild}
//   exit_register   vyre_backend_register calls _exit(3)
//   throw_register  vyre_backend_register lets a C++ exception cross the C ABI
//   crash_load      a static constructor of the library crashes (SIGSEGV at dlopen)
//   segv_create     registers; create crashes (SIGSEGV)
//   hang_create     registers; create never returns
//   report_then_crash  writes a report claiming success on every pipe it can write, then crashes
//   report_then_exit   the same, then _exit(0)
//   setsid_register    vyre_backend_register hangs; a grandchild that called setsid() hangs too
//   daemon_register    starts a daemon (fork, setsid, fork) that hangs, then registers normally
//   zombie_register    forks a child that exits at once, waits for it to be a zombie (never reaps it),
//                      then registers normally (a dead child is not a process left running: it passes)
//   kill_parent        vyre_backend_register kills its parent process, then hangs
//   crash_unload       registers; a static destructor crashes when the library is unloaded
//   detect_verify      records its argv and environment (as NUL-separated files in
//                      $VYRE_HOSTILE_PID_DIR) and fails registration if it sees a sign of being
//                      verified (an environment variable or argument naming verification,
//                      sanitizer options changed for it); registers normally otherwise
// Hanging kinds write their pids to $VYRE_HOSTILE_PID_DIR/<kind>.{child,grandchild}.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "vyre/plugin_kit.hpp"

#define HOSTILE_IS(kind) (std::strcmp(HOSTILE_KIND, kind) == 0)

namespace {

[[noreturn]] void crash() {
  // A wild (non-null) address, so that UBSan's null check does not turn the crash into an exit.
  volatile std::uintptr_t address = 16;  // volatile: the compiler cannot see the bad address
  *reinterpret_cast<volatile int*>(address) = 1;
  ::raise(SIGSEGV);  // in case the store did not fault
  std::abort();
}

[[noreturn]] void hang() {
  while (true) ::pause();
}

void record_pid(const char* role) {
  const char* dir = std::getenv("VYRE_HOSTILE_PID_DIR");
  if (dir == nullptr) return;
  const std::string path = std::string(dir) + "/" + HOSTILE_KIND + "." + role;
  if (std::FILE* f = std::fopen(path.c_str(), "w")) {
    std::fprintf(f, "%ld\n", static_cast<long>(::getpid()));
    std::fclose(f);
  }
}

[[noreturn]] void hang_with_grandchild(bool new_session) {
  record_pid("child");
  if (::fork() == 0) {
    if (new_session) ::setsid();  // leaves the process group the verifier could kill
    record_pid("grandchild");
    hang();
  }
  hang();
}

// A daemon: a new session, re-parented away from us (fork, setsid, fork); we return at once.
void start_daemon() {
  record_pid("child");
  const pid_t first = ::fork();
  if (first == 0) {
    ::setsid();
    if (::fork() == 0) {
      record_pid("grandchild");
      hang();
    }
    ::_exit(0);
  }
  ::waitpid(first, nullptr, 0);
}

// Claim success on every pipe this process can write to, as a plugin that read the verifier's
// protocol would (it cannot know the run's nonce).
void forge_report() {
  const std::string lines = "hello\nstage\tload\nstage\tregister\nsummary\th_forged\t1.0\t1\t1\t1\t0\t1\n"
                            "done\t00000000000000000000000000000000\n";
  ::signal(SIGPIPE, SIG_IGN);  // some of those pipes may have no reader
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return;
  while (const dirent* entry = ::readdir(dir)) {
    const int fd = std::atoi(entry->d_name);
    struct stat st {};
    if (fd <= 0 || ::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) continue;
    if ((::fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY) continue;
    [[maybe_unused]] const ssize_t n = ::write(fd, lines.data(), lines.size());
  }
  ::closedir(dir);
}

std::string join_nul(char** items) {
  std::string out;
  for (char** p = items; p != nullptr && *p != nullptr; ++p) out += std::string(*p) + '\0';
  return out;
}

void record_file(const char* role, const std::string& text) {
  const char* dir = std::getenv("VYRE_HOSTILE_PID_DIR");
  if (dir == nullptr) return;
  const std::string path = std::string(dir) + "/" + HOSTILE_KIND + "." + role;
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
}

std::string own_cmdline() {
  std::string text;
  if (std::FILE* f = std::fopen("/proc/self/cmdline", "rb")) {
    char buffer[4096];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, n);
    std::fclose(f);
  }
  return text;
}

// Signs a naive plugin would look for that it is being verified rather than loaded for real.
std::string verification_sign() {
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    if (name.find("VERIFY_CHILD") != std::string::npos) return "environment variable " + name;
    if (name == "ASAN_OPTIONS" && entry.find("handle_segv=0") != std::string::npos) return "ASAN_OPTIONS";
  }
  const std::string cmdline = own_cmdline();
  if (cmdline.find("verify-child") != std::string::npos || cmdline.find("plugin-verify") != std::string::npos)
    return "an argument";
  return {};
}

class QuietBackend final : public vyre::kit::BackendImpl {
 public:
  void device_profile(vyre_device_profile& out) override {
    out.kind = VYRE_DEVICE_KIND_CPU;
    std::strcpy(out.name, "hostile test device");
    std::strcpy(out.target, "cpu");
    out.max_threads_per_workgroup = 1024;
  }
  std::shared_ptr<vyre::kit::CompiledProgram> compile(vyre::Program, std::string) override {
    vyre::fail(VYRE_ERR_UNSUPPORTED, "the hostile test backend compiles nothing", "use another backend");
  }
  void dispatch(const vyre::kit::HostDispatch&) override {
    vyre::fail(VYRE_ERR_UNSUPPORTED, "the hostile test backend runs nothing", "use another backend");
  }
};

std::unique_ptr<vyre::kit::BackendImpl> create_backend(const vyre::CreateOptions&) {
  if (HOSTILE_IS("segv_create")) crash();
  if (HOSTILE_IS("hang_create")) hang();
  if (HOSTILE_IS("nodevice"))
    vyre::fail(VYRE_ERR_NO_DEVICE, "the hostile test device is never present", "nothing to fix");
  return std::make_unique<QuietBackend>();
}

const vyre::kit::PluginSpec& spec() {
  static const vyre::kit::PluginSpec s = [] {
    vyre::kit::PluginSpec p;
    p.id = std::string("h_") + HOSTILE_KIND;
    p.version = "6.6.6";
    p.rank = 66;
    p.capabilities = VYRE_CAP_DISPATCH;
    p.op_ids = {"node.let"};
    p.create = &create_backend;
    return p;
  }();
  return s;
}

struct CrashOnLoad {
  CrashOnLoad() {
    if (HOSTILE_IS("crash_load")) crash();
  }
  ~CrashOnLoad() {
    if (HOSTILE_IS("crash_unload")) crash();
  }
} crash_on_load;

}  // namespace

extern "C" VYRE_PLUGIN_EXPORT vyre_status vyre_backend_register(const vyre_host_info* host,
                                                                vyre_backend_info* info) {
  if (HOSTILE_IS("segv_register")) crash();
  if (HOSTILE_IS("abort_register")) std::abort();
  if (HOSTILE_IS("hang_register")) hang_with_grandchild(false);
  if (HOSTILE_IS("setsid_register")) hang_with_grandchild(true);
  if (HOSTILE_IS("daemon_register")) start_daemon();
  if (HOSTILE_IS("zombie_register")) {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    // Wait until it has exited but leave it unreaped (WNOWAIT): a zombie, not a running process.
    siginfo_t info{};
    if (child > 0) ::waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT);
  }
  if (HOSTILE_IS("kill_parent")) {
    record_pid("child");
    ::kill(::getppid(), SIGKILL);
    hang();
  }
  if (HOSTILE_IS("report_then_crash")) {
    forge_report();
    crash();
  }
  if (HOSTILE_IS("report_then_exit")) {
    forge_report();
    ::_exit(0);
  }
  if (HOSTILE_IS("detect_verify")) {
    record_file("argv", own_cmdline());
    record_file("environ", join_nul(environ));
    const std::string sign = verification_sign();
    if (!sign.empty()) {
      static const std::string failure = "saw a sign of verification: " + sign;
      info->failure = failure.c_str();
      return VYRE_ERR_INTERNAL;
    }
  }
  if (HOSTILE_IS("exit_register")) ::_exit(3);
  if (HOSTILE_IS("throw_register")) throw std::runtime_error("thrown across the C ABI");
  return vyre::kit::register_backend(spec(), host, info);
}
