// Plugins that misbehave without crashing (red team 2026-11-24, docs/RELIABILITY.md): text a plugin
// hands the host (log lines, ids, versions, device names, error messages) reaches logs and the
// terminal escaped and clipped; a plugin that calls exit(0) or quick_exit(0) while it registers or
// creates cannot end `vyre backends` silently.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <vector>

#include "vyre/builder.hpp"
#include "vyre/error.hpp"
#include "vyre/plugin_exit_guard.hpp"
#include "vyre/registry.hpp"

namespace fs = std::filesystem;

namespace {

fs::path plugin_dir(const std::string& kind) { return fs::path(VYRE_UNRULY_PLUGIN_DIR) / kind; }

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// No byte a terminal would act on: C0 controls but tab and newline, DEL, and the UTF-8 forms of
// the C1 controls and the bidirectional overrides this test's plugin sends.
bool terminal_safe(const std::string& text) {
  for (unsigned char c : text)
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return false;
  return !contains(text, "\xc2\x9b") && !contains(text, "\xe2\x80\xae");
}

std::size_t longest_line(const std::string& text) {
  std::size_t longest = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    longest = std::max(longest, end - start);
    start = end + 1;
  }
  return longest;
}

struct Captured {
  std::mutex mutex;
  std::vector<std::string> lines;
};

vyre::RegistryOptions options_for(const std::string& kind, Captured* captured) {
  vyre::RegistryOptions o;
  o.plugin_dirs = {plugin_dir(kind)};
  o.use_environment = false;
  o.use_default_dirs = false;
  if (captured != nullptr)
    o.log = [captured](int, std::string_view line) {
      std::lock_guard lock(captured->mutex);
      captured->lines.emplace_back(line);
    };
  return o;
}

struct Result {
  int status = -1;  // the exit status, -1 for a signal
  std::string out;
  std::string err;
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// `vyre --no-default-plugins --plugins <kind's directory> ARGS`, outside the environment's plugins.
Result vyre_cli(const std::string& kind, const std::string& args) {
  const fs::path work = fs::path(VYRE_UNRULY_PLUGIN_DIR) / ("work_" + kind);
  fs::create_directories(work);
  const std::string command = "env -u VYRE_PLUGIN_PATH -u VYRE_BACKEND -u VYRE_VERIFY_PLUGINS '" VYRE_CLI
                              "' --no-default-plugins --plugins '" + plugin_dir(kind).string() + "' " + args +
                              " >'" + (work / "out").string() + "' 2>'" + (work / "err").string() + "'";
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(work / "out"), slurp(work / "err")};
}

}  // namespace

TEST_CASE("plugin log lines reach the registry's sink escaped and clipped") {
  Captured captured;
  const vyre::Registry registry(options_for("noisy", &captured));
  REQUIRE(registry.plugins().size() == 1);
  std::lock_guard lock(captured.mutex);
  bool saw_escapes = false, saw_forged = false, saw_huge = false;
  for (const std::string& line : captured.lines) {
    CAPTURE(line.substr(0, 200));
    CHECK(terminal_safe(line));
    CHECK(!contains(line, "\n"));  // one message, one line: no forged "vyre: error:" line
    CHECK(line.size() < 6000);     // the 8 MiB line is clipped at 4 KiB
    saw_escapes |= contains(line, "escapes \\x1b[2J\\x1b]0;pwned\\x07\\x0d\\u009b31m\\u202e");
    saw_forged |= contains(line, "one line\\x0avyre: error: a forged second line");
    saw_huge |= contains(line, "... (clipped at 4096 bytes)");
  }
  CHECK(saw_escapes);
  CHECK(saw_forged);
  CHECK(saw_huge);
  // The version a plugin registers is kept escaped, and so is what its device and errors say.
  CHECK(registry.plugins()[0].version == "1.0\\x1b[2J\\x1b]0;pwned\\x07\\x0d\\u009b31m\\u202e");
}

TEST_CASE("a rejected plugin's id is shown escaped in the reason") {
  const vyre::Registry registry(options_for("bad_id", nullptr));
  REQUIRE(registry.rejected().size() == 1);
  const std::string& reason = registry.rejected()[0].reason;
  CHECK(contains(reason, "invalid id 'u_\\x1b[31mred\\x1b[0m'"));
  CHECK(terminal_safe(reason));
}

TEST_CASE("plugin error messages are escaped where the host wrapper receives them") {
  vyre::Registry registry(options_for("noisy", nullptr));
  const vyre::host::Backend backend = registry.backend("u_noisy");
  vyre::ProgramBuilder b;
  b.workgroup(1);
  b.let("x", vyre::dsl::u32(1));
  std::string message;
  try {
    (void)backend.compile(b.build());
  } catch (const vyre::Error& e) {
    message = e.what();
  }
  CHECK(contains(message, "nothing compiles here\\x1b[2J"));
  CHECK(terminal_safe(message));
  const vyre_device_profile profile = backend.device_profile();
  CHECK(std::string(profile.name).starts_with("dev\x1b"));  // the raw struct; the CLI escapes it
}

TEST_CASE("vyre backends prints a noisy plugin's text escaped, on lines of bounded length") {
  const Result r = vyre_cli("noisy", "-v backends");
  CHECK(r.status == 0);
  CHECK(contains(r.out, "u_noisy 1.0\\x1b[2J"));
  CHECK(contains(r.out, "ok (dev\\x1b[2J"));
  CHECK(terminal_safe(r.out));
  CHECK(terminal_safe(r.err));
  CHECK(longest_line(r.out + r.err) < 6000);
  CHECK(contains(r.err, "[libvyre_u_noisy.so] escapes \\x1b[2J"));  // during register: the file name

  const Result bad = vyre_cli("bad_id", "backends");
  CHECK(bad.status == 0);
  CHECK(contains(bad.out, "invalid id 'u_\\x1b[31mred\\x1b[0m'"));
  CHECK(terminal_safe(bad.out));
}

TEST_CASE("a plugin that calls exit(0) or quick_exit(0) cannot end vyre backends silently") {
  for (const char* kind : {"exit0_register", "quick_exit_register"}) {
    CAPTURE(kind);
    const Result r = vyre_cli(kind, "backends");
    CHECK(r.status == vyre::kPluginExitStatus);
    CHECK(r.status != 0);
    CHECK(contains(r.err, std::string("libvyre_u_") + kind + ".so ended the process from vyre_backend_register"));
    CHECK(contains(r.err, "Fix:"));
  }
  const Result create = vyre_cli("exit0_create", "backends");
  CHECK(create.status == vyre::kPluginExitStatus);
  CHECK(contains(create.err, "plugin u_exit0_create ended the process from create"));
  CHECK(contains(create.out, "search directories:"));  // what was printed before it is kept
}
