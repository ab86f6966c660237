// The verifier supervisor (verify_protocol.hpp): recognises itself by the host's control socket,
// becomes the subreaper of everything the plugin starts, forks the verifier child, and when the
// child ends or the host asks it to stop, kills every process left below it, including ones that
// called setsid() or double-forked: orphans are re-parented to the nearest subreaper, which is
// this process, so they cannot leave its subtree.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "verify_protocol.hpp"

namespace vyre::registry_detail {

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr auto kPollSlice = 20ms;
constexpr auto kKillPatience = 5s;  // processes in uninterruptible sleep may take a while to die

std::optional<int> parse_int(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The descriptors of this process above stderr.
std::vector<int> open_descriptors() {
  std::vector<int> fds;
  if (DIR* dir = ::opendir("/proc/self/fd")) {
    const int own = ::dirfd(dir);
    while (const dirent* entry = ::readdir(dir)) {
      const std::optional<int> fd = parse_int(entry->d_name);
      if (fd && *fd > 2 && *fd != own) fds.push_back(*fd);
    }
    ::closedir(dir);
    return fds;
  }
  rlimit limit{};
  const rlim_t top = ::getrlimit(RLIMIT_NOFILE, &limit) == 0 ? std::min<rlim_t>(limit.rlim_cur, 4096) : 1024;
  for (int fd = 3; fd < static_cast<int>(top); ++fd)
    if (::fcntl(fd, F_GETFD) != -1) fds.push_back(fd);
  return fds;
}

// A connected Unix stream socket whose pending bytes start with the request magic.
bool is_control_socket(int fd) {
  int value = 0;
  socklen_t length = sizeof value;
  if (::getsockopt(fd, SOL_SOCKET, SO_TYPE, &value, &length) != 0 || value != SOCK_STREAM) return false;
  length = sizeof value;
  if (::getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &value, &length) != 0 || value != AF_UNIX) return false;
  char head[kRequestMagic.size()];
  const ssize_t n = ::recv(fd, head, sizeof head, MSG_PEEK | MSG_DONTWAIT);
  return n == static_cast<ssize_t>(sizeof head) && std::memcmp(head, kRequestMagic.data(), sizeof head) == 0;
}

int find_control_socket() {
  for (const int fd : open_descriptors())
    if (is_control_socket(fd)) return fd;
  return -1;
}

// The request line; the host wrote all of it before starting this process.
std::optional<VerifyRequest> read_request(int control) {
  std::string text;
  char chunk[512];
  while (text.find('\n') == std::string::npos && text.size() < kMaxRequestBytes) {
    pollfd p{control, POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) return std::nullopt;
    const ssize_t n = ::recv(control, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    text.append(chunk, static_cast<std::size_t>(n));
  }
  VerifyRequest request;
  const std::size_t end = text.find('\n');
  if (end == std::string::npos || !decode_request(std::string_view(text).substr(0, end), request))
    return std::nullopt;
  return request;
}

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the host is gone
    done += static_cast<std::size_t>(n);
  }
}

struct Child {
  pid_t pid;
  bool zombie;  // already dead, waiting to be reaped
};

// The children of this process (alive or zombies), from /proc/<pid>/stat.
std::vector<Child> own_children() {
  std::vector<Child> children;
  const pid_t self = ::getpid();
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return children;
  while (const dirent* entry = ::readdir(proc)) {
    const std::optional<int> pid = parse_int(entry->d_name);
    if (!pid) continue;
    const std::string path = "/proc/" + std::string(entry->d_name) + "/stat";
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    char buffer[1024];
    const ssize_t n = ::read(fd, buffer, sizeof buffer - 1);
    ::close(fd);
    if (n <= 0) continue;
    const std::string_view stat(buffer, static_cast<std::size_t>(n));
    // "<pid> (<comm>) <state> <ppid> ...": comm may hold spaces and parentheses.
    const std::size_t close = stat.rfind(')');
    if (close == std::string_view::npos || close + 4 >= stat.size()) continue;
    std::string_view rest = stat.substr(close + 4);  // after ") S "
    rest = rest.substr(0, rest.find(' '));
    if (parse_int(rest) == self) children.push_back({*pid, stat[close + 2] == 'Z'});
  }
  ::closedir(proc);
  return children;
}

struct ChildEnd {
  std::optional<int> status;  // the verifier child's wait status, once reaped
  std::size_t leftover = 0;   // other processes that were still there and were killed
  bool stop_requested = false;
};

void reap_dead(pid_t child, ChildEnd& end) {
  int status = 0;
  pid_t pid;
  while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0)
    if (pid == child) end.status = status;
}

// Kill every process below this one, level by level (a killed parent's children come here next),
// until none is left or the patience runs out.
void kill_tree(pid_t child, ChildEnd& end) {
  std::set<pid_t> counted;
  const Clock::time_point give_up = Clock::now() + kKillPatience;
  while (true) {
    reap_dead(child, end);
    const std::vector<Child> children = own_children();
    if (children.empty() || Clock::now() > give_up) return;
    for (const Child& c : children) {
      // An unreaped dead child is not a process left running.
      if (c.pid != child && !c.zombie && counted.insert(c.pid).second) ++end.leftover;
      ::kill(c.pid, SIGKILL);  // still our child (not reaped since listed): the pid cannot be reused
    }
    std::this_thread::sleep_for(1ms);
  }
}

// Whether the host shut down its end of the control socket (a timeout, or the host died).
bool host_says_stop(int control, int wait_ms) {
  pollfd p{control, POLLIN, 0};
  if (::poll(&p, 1, wait_ms) <= 0) return false;
  char byte;
  const ssize_t n = ::recv(control, &byte, 1, MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) || (p.revents & (POLLHUP | POLLERR));
}

ChildEnd watch_child(pid_t child, int control) {
  ChildEnd end;
  while (!end.status) {
    int status = 0;
    const pid_t r = ::waitpid(child, &status, WNOHANG);
    if (r == child) {
      end.status = status;
      break;
    }
    if (r < 0 && errno != EINTR) break;  // lost (cannot happen: nobody else reaps here)
    if (host_says_stop(control, static_cast<int>(kPollSlice.count()))) {
      end.stop_requested = true;
      ::kill(child, SIGKILL);
      break;
    }
  }
  kill_tree(child, end);
  return end;
}

std::string describe_end(const ChildEnd& end) {
  std::string text;
  if (!end.status) text = "child lost\n";
  else if (WIFSIGNALED(*end.status)) text = "child signal " + std::to_string(WTERMSIG(*end.status)) + "\n";
  else text = "child exit " + std::to_string(WEXITSTATUS(*end.status)) + "\n";
  text += "leftover " + std::to_string(end.leftover) + "\n";
  if (end.stop_requested) text += "stopped\n";
  return text;
}

[[noreturn]] void supervise(int control, const VerifyRequest& request) {
  ::fcntl(control, F_SETFD, FD_CLOEXEC);
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(control);  // the plugin never holds the channel the verdict's exit status travels on
    ::_exit(run_verify_child(request));
  }
  ::close(request.report_fd);  // only the child reports
  ChildEnd end;
  if (child > 0) end = watch_child(child, control);
  write_all(control, describe_end(end));
  ::_exit(0);
}

}  // namespace

void run_supervisor_if_requested() noexcept {
  const int control = find_control_socket();
  if (control < 0) return;
  const std::optional<VerifyRequest> request = read_request(control);
  if (!request) ::_exit(125);  // a control socket with a broken request: never run main()
  supervise(control, *request);
}

}  // namespace vyre::registry_detail
