// Spawning the verifier supervisor (posix_spawn: safe in a multithreaded host) and watching it.
#include "verify_child_process.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/core.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "hex.hpp"
#include "verify_protocol.hpp"

extern char** environ;

namespace vyre::registry_detail {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kOutputTailBytes = 4096;
constexpr std::size_t kReportMaxBytes = 1u << 16;
constexpr int kFirstPrivateFd = 10;  // parent-side ends live above the child's 0..2
constexpr int kLastChildFd = 255;    // the child's channels get numbers in (kFirstPrivateFd, this]
constexpr auto kPollSlice = std::chrono::milliseconds(20);
constexpr auto kStopGrace = std::chrono::seconds(5);  // for the supervisor to kill everything

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

// The two ends of a pipe or socket pair: `ours` stays here, `theirs` goes to the child.
struct Channel {
  Fd ours;
  Fd theirs;
};

std::string errno_text(const char* what, int error) {
  return fmt::format("{} failed: {}", what, std::strerror(error));
}

// Close-on-exec descriptors numbered >= kFirstPrivateFd (so that the child's dup2 onto its own
// numbers always copies, which also clears close-on-exec on the copy).
std::string raise_ends(const int fds[2], Channel& out, bool ours_is_first) {
  Fd low0(fds[0]);
  Fd low1(fds[1]);
  Fd first(::fcntl(fds[0], F_DUPFD_CLOEXEC, kFirstPrivateFd));
  Fd second(::fcntl(fds[1], F_DUPFD_CLOEXEC, kFirstPrivateFd));
  if (first.get() < 0 || second.get() < 0) return errno_text("fcntl(F_DUPFD_CLOEXEC)", errno);
  out.ours = ours_is_first ? std::move(first) : std::move(second);
  out.theirs = ours_is_first ? std::move(second) : std::move(first);
  ::fcntl(out.ours.get(), F_SETFL, O_NONBLOCK);
  return {};
}

std::string make_pipe(Channel& out) {  // the child writes, we read
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return errno_text("pipe2", errno);
  return raise_ends(fds, out, true);
}

std::string make_socket_pair(Channel& out) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return errno_text("socketpair", errno);
  return raise_ends(fds, out, true);
}

std::string random_nonce(std::mt19937_64& random) {
  std::string bytes(16, '\0');
  for (char& b : bytes) b = static_cast<char>(random() & 0xff);
  return hex_encode(bytes);
}

std::mt19937_64 seeded_random() {
  std::seed_seq seed{static_cast<std::uint64_t>(Clock::now().time_since_epoch().count()),
                     static_cast<std::uint64_t>(::getpid())};
  try {
    std::random_device device;
    std::seed_seq strong{device(), device(), device(), device(), device(), device(), device(), device()};
    return std::mt19937_64(strong);
  } catch (const std::exception&) {
    return std::mt19937_64(seed);  // no entropy source: still unguessable by a plugin in advance
  }
}

// A descriptor number for the child that is none of `taken`.
int pick_child_fd(std::mt19937_64& random, const std::vector<int>& taken) {
  rlimit limit{};
  int top = kLastChildFd;
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    top = std::min<int>(top, static_cast<int>(limit.rlim_cur) - 1);
  std::uniform_int_distribution<int> pick(kFirstPrivateFd, std::max(top, kFirstPrivateFd + 8));
  while (true) {
    const int fd = pick(random);
    if (std::find(taken.begin(), taken.end(), fd) == taken.end()) return fd;
  }
}

std::string write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return errno_text("writing the verifier request", errno);
    done += static_cast<std::size_t>(n);
  }
  return {};
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// This process's own argv, as the kernel recorded it.
std::vector<std::string> own_argv() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\0', start);
    args.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return args;
}

// Whether the code at `address` runs before main() in a fresh copy of this executable: it lies in
// the executable itself, or in a shared library the executable names in DT_NEEDED (loaded, and its
// constructors run, at start-up). A library loaded later with dlopen (a Python extension, say) does
// not qualify: a copy of the program would run main() first.
bool runs_before_main(const void* address) {
  Dl_info where{};
  if (::dladdr(address, &where) == 0 || where.dli_fname == nullptr) return false;
  const std::string library = std::filesystem::path(where.dli_fname).filename().string();
  struct Query {
    std::uintptr_t address;
    std::string library;
    bool found = false;
    bool first = true;
  } query{reinterpret_cast<std::uintptr_t>(address), library};
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) -> int {
        auto* q = static_cast<Query*>(data);
        if (!q->first) return 1;
        q->first = false;  // the main program comes first
        const ElfW(Dyn)* dynamic = nullptr;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type == PT_DYNAMIC) dynamic = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + ph.p_vaddr);
          if (ph.p_type != PT_LOAD) continue;
          const std::uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
          if (q->address >= begin && q->address < begin + ph.p_memsz) q->found = true;
        }
        if (q->found || dynamic == nullptr) return 1;
        std::uintptr_t strtab = 0;
        for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d)
          if (d->d_tag == DT_STRTAB) strtab = d->d_un.d_ptr;
        if (strtab == 0) return 1;
        // glibc relocates these entries in place on most targets; an unrelocated one is an offset.
        if (strtab < info->dlpi_addr) strtab += info->dlpi_addr;
        for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d)
          if (d->d_tag == DT_NEEDED && q->library == reinterpret_cast<const char*>(strtab + d->d_un.d_val))
            q->found = true;
        return 1;
      },
      &query);
  return query.found;
}

// The program to run and its argv. Empty helper: this executable (the real path behind
// /proc/self/exe, so that `ps` and valgrind show what runs) with this process's own argv, which is
// only safe when the verifier hook is part of this executable (else the copy would run main()).
struct Program {
  std::filesystem::path path;
  std::vector<std::string> argv;
  std::string error;
};

Program program_for(const std::filesystem::path& helper) {
  if (!helper.empty()) return {helper, {helper.string()}, {}};
  if (!runs_before_main(reinterpret_cast<const void*>(&run_supervisor_if_requested)))
    return {{}, {}, "this program cannot verify plugins itself (libvyre_registry is neither part of its "
                    "executable nor one of the libraries it starts with). Fix: set PluginVerifyOptions::helper to a vyre tool (e.g. the `vyre` "
                    "binary)"};
  std::error_code ec;
  std::filesystem::path real = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec || !std::filesystem::is_regular_file(real, ec)) real = "/proc/self/exe";
  std::vector<std::string> argv = own_argv();
  if (argv.empty()) argv.push_back(real.string());
  return {real, std::move(argv), {}};
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

struct Watch {
  pid_t pid = -1;
  Channel control;
  Channel report;
  Channel output;
  bool control_open = true;
  bool report_open = true;
  bool output_open = true;
};

void configure(SpawnSetup& setup, const Watch& w, int control_fd, int report_fd) {
  posix_spawn_file_actions_addopen(&setup.actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&setup.actions, w.output.theirs.get(), 1);
  posix_spawn_file_actions_adddup2(&setup.actions, w.output.theirs.get(), 2);
  posix_spawn_file_actions_adddup2(&setup.actions, w.report.theirs.get(), report_fd);
  posix_spawn_file_actions_adddup2(&setup.actions, w.control.theirs.get(), control_fd);
  // Its own process group (a backstop: the supervisor normally kills everything itself), no
  // blocked signals, and the default action for the signals a host may have ignored or caught.
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

void drain_all(Watch& w, ChildOutcome& outcome) {
  if (w.control_open) w.control_open = drain(w.control.ours.get(), outcome.supervisor, kReportMaxBytes, false);
  if (w.report_open) w.report_open = drain(w.report.ours.get(), outcome.report, kReportMaxBytes, false);
  if (w.output_open) w.output_open = drain(w.output.ours.get(), outcome.output, kOutputTailBytes, true);
}

void read_channels(Watch& w, ChildOutcome& outcome, int wait_ms) {
  std::array<pollfd, 3> fds{};
  nfds_t count = 0;
  if (w.control_open) fds[count++] = {w.control.ours.get(), POLLIN, 0};
  if (w.report_open) fds[count++] = {w.report.ours.get(), POLLIN, 0};
  if (w.output_open) fds[count++] = {w.output.ours.get(), POLLIN, 0};
  if (::poll(count ? fds.data() : nullptr, count, wait_ms) <= 0) return;
  drain_all(w, outcome);
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
  std::optional<Clock::time_point> backstop;
  while (!has_exited(w.pid)) {
    const Clock::time_point now = Clock::now();
    if (!backstop && now >= deadline) {
      outcome.timed_out = true;
      ::shutdown(w.control.ours.get(), SHUT_WR);  // "stop": the supervisor kills the tree and exits
      backstop = now + kStopGrace;
    }
    if (backstop && now >= *backstop) break;  // it did not finish: its process group goes below
    // Rounded up: a truncated wait would give up to a millisecond before the deadline.
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(backstop.value_or(deadline) - now);
    read_channels(w, outcome, static_cast<int>(std::min(left, std::chrono::milliseconds(kPollSlice)).count()));
  }
  ::kill(-w.pid, SIGKILL);  // normally empty by now; the supervisor itself, if it is stuck
  ::kill(w.pid, SIGKILL);
  reap(w.pid, outcome);
  drain_all(w, outcome);
  if (outcome.output.size() > kOutputTailBytes)
    outcome.output.erase(0, outcome.output.size() - kOutputTailBytes);
}

ChildOutcome spawn_and_watch(const std::filesystem::path& helper, const std::filesystem::path& plugin,
                             const std::string& mode, std::chrono::milliseconds timeout) {
  ChildOutcome outcome;
  Program program = program_for(helper);
  if (!program.error.empty()) return ChildOutcome{program.error, {}, {}, {}, {}, false, 0, 0};
  Watch w;
  for (std::string e : {make_socket_pair(w.control), make_pipe(w.report), make_pipe(w.output)})
    if (!e.empty()) return ChildOutcome{e, {}, {}, {}, {}, false, 0, 0};
  std::mt19937_64 random = seeded_random();
  std::vector<int> taken = {w.control.theirs.get(), w.report.theirs.get(), w.output.theirs.get()};
  const int report_fd = pick_child_fd(random, taken);
  taken.push_back(report_fd);
  const int control_fd = pick_child_fd(random, taken);
  outcome.nonce = random_nonce(random);
  const VerifyRequest request{outcome.nonce, mode, report_fd, plugin.string()};
  if (std::string e = write_all(w.control.ours.get(), encode_request(request)); !e.empty())
    return ChildOutcome{e, {}, {}, {}, {}, false, 0, 0};
  SpawnSetup setup;
  configure(setup, w, control_fd, report_fd);
  std::vector<char*> argv = pointers(program.argv);
  const int error = ::posix_spawn(&w.pid, program.path.c_str(), &setup.actions, &setup.attributes,
                                  argv.data(), environ);
  if (error != 0) {
    outcome.spawn_error = fmt::format("cannot start the plugin verifier {}: {}. Fix: check that it exists "
                                      "and is executable",
                                      program.path.string(), std::strerror(error));
    return outcome;
  }
  w.control.theirs.reset();  // only the supervisor holds the other ends now
  w.report.theirs.reset();
  w.output.theirs.reset();
  watch(w, outcome, timeout);
  return outcome;
}

}  // namespace

ChildOutcome run_verifier(const std::filesystem::path& helper, const std::filesystem::path& plugin,
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
