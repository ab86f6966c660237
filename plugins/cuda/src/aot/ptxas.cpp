#include "aot/ptxas.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "vyre/error.hpp"

extern char** environ;

namespace vyre::cuda::aot {
namespace {

namespace fs = std::filesystem;

bool is_executable(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

std::optional<fs::path> on_path(std::string_view name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::string_view rest = path;
  while (!rest.empty()) {
    const std::size_t colon = rest.find(':');
    const std::string_view dir = rest.substr(0, colon);
    if (!dir.empty() && is_executable(fs::path(dir) / name)) return fs::path(dir) / name;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return std::nullopt;
}

// A private directory for ptxas's files, removed on destruction.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = fmt::format("{}/vyre-aot-ptxas-XXXXXX", base != nullptr && *base ? base : "/tmp");
    if (::mkdtemp(pattern.data()) == nullptr)
      fail(VYRE_ERR_IO, fmt::format("cannot create a temporary directory from '{}'", pattern),
           "set TMPDIR to a writable directory");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The first few lines of ptxas's output, for the status.
std::string first_lines(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::string out;
  for (int i = 0; i < 4 && std::getline(in, line); ++i) out += (out.empty() ? "" : " | ") + line;
  return out.empty() ? "no output" : out;
}

// Exit status of `argv`, with stdout and stderr into `log`; -1 when it could not be started.
int run_process(const std::vector<std::string>& argv, const fs::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) fail(VYRE_ERR_IO, fmt::format("cannot write '{}'", path.string()), "set TMPDIR to a writable directory");
}

}  // namespace

std::optional<fs::path> find_ptxas() {
  if (const char* forced = std::getenv(kPtxasEnv); forced != nullptr && *forced != '\0') {
    if (std::string_view(forced) == "off") return std::nullopt;
    return is_executable(forced) ? std::optional<fs::path>(forced) : std::nullopt;
  }
  if (auto found = on_path("ptxas")) return found;
  if (const char* home = std::getenv("CUDA_HOME"); home != nullptr && *home != '\0') {
    const fs::path candidate = fs::path(home) / "bin" / "ptxas";
    if (is_executable(candidate)) return candidate;
  }
  const fs::path fallback = "/usr/local/cuda/bin/ptxas";
  if (is_executable(fallback)) return fallback;
  return std::nullopt;
}

CubinResult assemble_cubin(const std::string& ptx, const Target& target) {
  CubinResult result;
  const char* forced = std::getenv(kPtxasEnv);
  if (forced != nullptr && std::string_view(forced) == "off") {
    result.status = fmt::format("no cubin: {}=off; the driver JIT-compiles kernel.ptx at load", kPtxasEnv);
    return result;
  }
  const std::optional<fs::path> ptxas = find_ptxas();
  if (!ptxas) {
    result.status = fmt::format(
        "no cubin: ptxas not found ({} unset or not executable, not on PATH, not in $CUDA_HOME/bin or "
        "/usr/local/cuda/bin); the driver JIT-compiles kernel.ptx at load",
        kPtxasEnv);
    return result;
  }
  TempDir dir;
  const fs::path input = dir.path() / "kernel.ptx";
  const fs::path output = dir.path() / "kernel.cubin";
  const fs::path log = dir.path() / "ptxas.log";
  write_text(input, ptx);
  const int status = run_process(
      {ptxas->string(), fmt::format("-arch={}", target.name()), input.string(), "-o", output.string()}, log);
  if (status != 0 || !fs::exists(output)) {
    result.status = fmt::format(
        "no cubin: {} -arch={} failed (exit {}): {}; the driver JIT-compiles kernel.ptx "
        "at load",
        ptxas->string(), target.name(), status, first_lines(read_text(log)));
    return result;
  }
  const std::string cubin = read_text(output);
  result.cubin = std::vector<std::uint8_t>(cubin.begin(), cubin.end());
  result.status = fmt::format("assembled by {} -arch={}", ptxas->string(), target.name());
  return result;
}

}  // namespace vyre::cuda::aot
