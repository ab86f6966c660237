// Spawning the verifier child (posix_spawn: safe in a multithreaded host) and watching it.
#include "verify_child_process.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "verify_protocol.hpp"
#include "vyre/plugin_verify.hpp"

extern char** environ;

namespace vyre::registry_detail {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kOutputTailBytes = 4096;
constexpr std::size_t kReportMaxBytes = 1u << 16;
constexpr int kFirstPrivateFd = 10;  // parent-side pipe ends live above the child's 0..3
constexpr auto kPollSlice = std::chrono::milliseconds(20);

// Sanitizer runtimes in the child must let fatal signals through, so that the verdict names the
// signal (otherwise ASan reports a SEGV and exits with status 1).
constexpr const char* kAsanSignalOptions =
    "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0";

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    reset(std::exchange(other.fd_, -1));
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read;
  Fd write;
};

std::string errno_text(const char* what, int error) {
  return fmt::format("{} failed: {}", what, std::strerror(error));
}

// A close-on-exec pipe whose ends are numbered >= kFirstPrivateFd (so that the child's dup2 onto
// 1, 2 and 3 always copies, which also clears close-on-exec on the copy).
std::string make_pipe(Pipe& out) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return errno_text("pipe2", errno);
  Fd low_read(fds[0]);
  Fd low_write(fds[1]);
  out.read = Fd(::fcntl(fds[0], F_DUPFD_CLOEXEC, kFirstPrivateFd));
  out.write = Fd(::fcntl(fds[1], F_DUPFD_CLOEXEC, kFirstPrivateFd));
  if (out.read.get() < 0 || out.write.get() < 0) return errno_text("fcntl(F_DUPFD_CLOEXEC)", errno);
  ::fcntl(out.read.get(), F_SETFL, O_NONBLOCK);
  return {};
}

std::vector<std::string> child_environment() {
  std::vector<std::string> env;
  std::string asan_options;
  const std::string verify_prefix = std::string(kVerifyChildEnv) + "=";
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (entry.starts_with(verify_prefix)) continue;
    if (entry.starts_with("ASAN_OPTIONS=")) {
      asan_options = std::string(entry.substr(13)) + ":";
      continue;
    }
    env.emplace_back(entry);
  }
  env.push_back(verify_prefix + "1");
  env.push_back("ASAN_OPTIONS=" + asan_options + kAsanSignalOptions);
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Owns the posix_spawn attribute objects.
struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

void configure(SpawnSetup& setup, const Pipe& report, const Pipe& output) {
  posix_spawn_file_actions_addopen(&setup.actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&setup.actions, output.write.get(), 1);
  posix_spawn_file_actions_adddup2(&setup.actions, output.write.get(), 2);
  posix_spawn_file_actions_adddup2(&setup.actions, report.write.get(), kVerifyReportFd);
  // Its own process group (so a timeout kills whatever it started), no blocked signals, and the
  // default action for the signals a host may have ignored or caught.
  posix_spawnattr_setflags(&setup.attributes,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&setup.attributes, 0);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&setup.attributes, &none);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGABRT, SIGBUS,
                SIGFPE, SIGILL, SIGALRM, SIGUSR1, SIGUSR2})
    sigaddset(&defaults, s);
  posix_spawnattr_setsigdefault(&setup.attributes, &defaults);
}

// Read what is available on `fd` into `into` (keeping at most `max` bytes: the first ones when
// `keep_tail` is false, the last ones otherwise). Returns false at end of file or on an error.
bool drain(int fd, std::string& into, std::size_t max, bool keep_tail) {
  std::array<char, 4096> chunk;
  while (true) {
    const ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK;
    if (n == 0) return false;
    if (keep_tail) {
      into.append(chunk.data(), static_cast<std::size_t>(n));
      if (into.size() > 2 * max) into.erase(0, into.size() - max);
    } else if (into.size() < max) {
      into.append(chunk.data(), std::min(static_cast<std::size_t>(n), max - into.size()));
    }
  }
}

struct Watch {
  pid_t pid;
  Pipe report;
  Pipe output;
  bool report_open = true;
  bool output_open = true;
};

void read_pipes(Watch& w, ChildOutcome& outcome, int wait_ms) {
  std::array<pollfd, 2> fds{};
  nfds_t count = 0;
  if (w.report_open) fds[count++] = {w.report.read.get(), POLLIN, 0};
  if (w.output_open) fds[count++] = {w.output.read.get(), POLLIN, 0};
  if (count == 0) {
    ::poll(nullptr, 0, wait_ms);
    return;
  }
  if (::poll(fds.data(), count, wait_ms) <= 0) return;
  if (w.report_open) w.report_open = drain(w.report.read.get(), outcome.report, kReportMaxBytes, false);
  if (w.output_open) w.output_open = drain(w.output.read.get(), outcome.output, kOutputTailBytes, true);
}

// Whether the child has exited (without reaping it, so that its pid, which is also its process
// group id, cannot be reused while we still signal the group).
bool has_exited(pid_t pid) {
  siginfo_t info{};
  while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0)
    if (errno != EINTR) return true;  // ECHILD: someone else reaped it
  return info.si_pid == pid;
}

void reap(pid_t pid, ChildOutcome& outcome) {
  int status = 0;
  pid_t r;
  do {
    r = ::waitpid(pid, &status, 0);
  } while (r < 0 && errno == EINTR);
  if (r != pid) {
    outcome.exit_status = -1;  // reaped elsewhere (SIGCHLD ignored, or a waitpid(-1) in the host)
  } else if (WIFSIGNALED(status)) {
    outcome.signal = WTERMSIG(status);
  } else if (WIFEXITED(status)) {
    outcome.exit_status = WEXITSTATUS(status);
  }
}

void watch(Watch& w, ChildOutcome& outcome, std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (!has_exited(w.pid)) {
    const Clock::time_point now = Clock::now();
    if (now >= deadline) {
      outcome.timed_out = true;
      break;
    }
    // Rounded up: a truncated wait would give up to a millisecond before the deadline.
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
    read_pipes(w, outcome, static_cast<int>(std::min(left, std::chrono::milliseconds(kPollSlice)).count()));
  }
  ::kill(-w.pid, SIGKILL);  // the child on timeout, and anything it left running in its group
  ::kill(w.pid, SIGKILL);
  reap(w.pid, outcome);
  if (w.report_open) drain(w.report.read.get(), outcome.report, kReportMaxBytes, false);
  if (w.output_open) drain(w.output.read.get(), outcome.output, kOutputTailBytes, true);
  if (outcome.output.size() > kOutputTailBytes)
    outcome.output.erase(0, outcome.output.size() - kOutputTailBytes);
}

// The program to run: the real path behind /proc/self/exe when it still exists (so that `ps`
// shows what runs, and valgrind, which reports the traced program for that link, execs it too).
std::filesystem::path resolve_helper(const std::filesystem::path& helper) {
  if (helper != "/proc/self/exe") return helper;
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::read_symlink(helper, ec);
  if (ec || !std::filesystem::is_regular_file(real, ec)) return helper;
  return real;
}

ChildOutcome spawn_and_watch(const std::filesystem::path& helper, const std::filesystem::path& plugin,
                             const std::string& mode, std::chrono::milliseconds timeout) {
  ChildOutcome outcome;
  Watch w{-1, {}, {}};
  if (std::string e = make_pipe(w.report); !e.empty()) return {e, {}, {}, false, 0, 0};
  if (std::string e = make_pipe(w.output); !e.empty()) return {e, {}, {}, false, 0, 0};
  SpawnSetup setup;
  configure(setup, w.report, w.output);
  const std::filesystem::path program = resolve_helper(helper);
  std::vector<std::string> args = {program.string(), std::string(kPluginVerifyChildMarker),
                                   plugin.string(), mode};
  std::vector<std::string> env = child_environment();
  std::vector<char*> argv = pointers(args);
  std::vector<char*> envp = pointers(env);
  const int error = ::posix_spawn(&w.pid, program.c_str(), &setup.actions, &setup.attributes,
                                  argv.data(), envp.data());
  if (error != 0) {
    outcome.spawn_error = fmt::format("cannot start the verifier child {}: {}. Fix: check that it "
                                      "exists and is executable",
                                      program.string(), std::strerror(error));
    return outcome;
  }
  w.report.write.reset();  // only the child writes; EOF once it and its descendants are gone
  w.output.write.reset();
  watch(w, outcome, timeout);
  return outcome;
}

}  // namespace

ChildOutcome run_verifier_child(const std::filesystem::path& helper, const std::filesystem::path& plugin,
                                const std::string& mode, std::chrono::milliseconds timeout) noexcept {
  try {
    return spawn_and_watch(helper, plugin, mode, timeout);
  } catch (const std::exception& e) {
    ChildOutcome outcome;
    outcome.spawn_error = fmt::format("plugin verification failed in the host: {}. Fix: retry; "
                                      "report it if it persists",
                                      e.what());
    return outcome;
  }
}

}  // namespace vyre::registry_detail
