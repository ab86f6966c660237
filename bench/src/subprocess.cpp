#include "subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/core.h>

#include "clock.hpp"

extern char** environ;

namespace vyre::bench {
namespace {

// The current environment with `overrides` set.
std::vector<std::string> child_environment(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    if (!overrides.contains(name)) out.push_back(entry);
  }
  for (const auto& [name, value] : overrides) out.push_back(fmt::format("{}={}", name, value));
  return out;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Read `fd` until EOF or the deadline (0: none); false on timeout.
bool drain(int fd, std::string& into, std::uint64_t deadline_ns) {
  char buffer[65536];
  for (;;) {
    int wait_ms = -1;
    if (deadline_ns != 0) {
      const std::uint64_t now = now_ns();
      if (now >= deadline_ns) return false;
      wait_ms = static_cast<int>(std::min<std::uint64_t>((deadline_ns - now) / 1'000'000 + 1, 1000));
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return true;
    into.append(buffer, static_cast<std::size_t>(got));
  }
}

}  // namespace

ProcessResult run_process(const ProcessSpec& spec) {
  if (spec.argv.empty()) throw std::runtime_error("run_process: no command");
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  if (spec.merge_stderr) posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);

  std::vector<std::string> args = spec.argv;
  std::vector<std::string> env = child_environment(spec.environment);
  std::vector<char*> argv = c_strings(args);
  std::vector<char*> envp = c_strings(env);

  ProcessResult result;
  const std::uint64_t start = now_ns();
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    throw std::runtime_error(fmt::format("cannot start {}: {}", spec.argv[0], std::strerror(spawned)));
  }

  const std::uint64_t deadline = spec.timeout_s == 0 ? 0 : start + std::uint64_t{spec.timeout_s} * 1'000'000'000;
  if (!drain(pipe_fds[0], result.output, deadline)) {
    result.timed_out = true;
    ::kill(pid, SIGKILL);  // the child this call started, by its id
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.wall_s = static_cast<double>(now_ns() - start) * 1e-9;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace vyre::bench
