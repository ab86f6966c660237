// Hostile plugins: each one that crashes, aborts, hangs, exits, throws, forges its report, kills
// its parent or leaves processes behind while loading, registering, creating or unloading is
// reported by file with the signal, timeout or status, the stage and a rejection code, by
// verify_plugin(), by the registry's verify_in_child mode and by `vyre plugins verify`; every
// process it started is gone afterwards (setsid() and daemons included); the verifier looks like a
// real load to the plugin; this process (the host) survives all of it, and the well-behaved
// plugins load and run.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "support/scoped_env.hpp"
#include "vyre/plugin_verify.hpp"
#include "vyre/registry.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using vyre::PluginRejection;
using vyre::test::ScopedEnv;
using vyre::PluginVerdict;
using vyre::PluginVerification;
using vyre::PluginVerifyOptions;

namespace {

// Crash or hang when loaded in-process: only ever verified in a child.
const fs::path kHostileDir = VYRE_HOSTILE_PLUGIN_DIR;
// Safe to load in-process: good, nodevice, detect_verify, throw_register (rejected by the loader)
// and garbage.
const fs::path kSafeDir = VYRE_SAFE_PLUGIN_DIR;

fs::path plugin(const std::string& kind) {
  const std::string name = "libvyre_h_" + kind + ".so";
  return fs::exists(kHostileDir / name) ? kHostileDir / name : kSafeDir / name;
}

// Plugins that finish get a generous timeout (a loaded CI machine, sanitizer builds); the hanging
// ones are verified with kHangTimeout, which they always exceed.
constexpr auto kHangTimeout = 1500ms;
constexpr auto kTimeout = 20s;

PluginVerifyOptions options(bool create = false, std::chrono::milliseconds timeout = kTimeout) {
  PluginVerifyOptions o;
  o.timeout = timeout;
  o.check_create = create;
  return o;
}

PluginVerifyOptions hang_options(bool create = false) { return options(create, kHangTimeout); }

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

std::string describe(const PluginVerification& v) {
  return std::string(vyre::plugin_verdict_name(v.verdict)) + " [" + v.stage + "] " + v.reason +
         " | output: " + v.output_tail;
}

// Whether process `pid` is gone (or a zombie nobody has reaped yet, which runs nothing).
bool process_gone(long pid) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (::kill(static_cast<pid_t>(pid), 0) != 0) return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const std::size_t close = text.rfind(')');
    if (close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z') return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

std::optional<long> recorded_pid(const fs::path& dir, const std::string& kind, const std::string& role) {
  std::ifstream in(dir / (kind + "." + role));
  long pid = 0;
  if (in >> pid) return pid;
  return std::nullopt;
}

std::string file_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A fresh directory the hostile plugins write their pids (and what they saw) into.
fs::path fresh_pid_dir() {
  const fs::path pids = fs::path(VYRE_RELIABILITY_WORK_DIR) / "pids";
  fs::remove_all(pids);
  fs::create_directories(pids);
  return pids;
}


}  // namespace

TEST_CASE("a plugin that segfaults in vyre_backend_register is reported with SIGSEGV") {
  const PluginVerification v = vyre::verify_plugin(plugin("segv_register"), options());
  INFO(describe(v));
  CHECK(v.verdict == PluginVerdict::Crashed);
  CHECK(v.code == PluginRejection::crashed);
  CHECK(v.signal == SIGSEGV);
  CHECK(v.stage == "register");
  CHECK(contains(v.reason, "SIGSEGV"));
  CHECK(contains(v.reason, "vyre_backend_register"));
  CHECK_FALSE(v.summary.has_value());
}

TEST_CASE("a plugin that aborts in vyre_backend_register is reported with SIGABRT") {
  const PluginVerification v = vyre::verify_plugin(plugin("abort_register"), options());
  INFO(describe(v));
  CHECK(v.verdict == PluginVerdict::Crashed);
  CHECK(v.signal == SIGABRT);
  CHECK(v.stage == "register");
  CHECK(contains(v.reason, "SIGABRT"));
}

TEST_CASE("a plugin that hangs in vyre_backend_register times out; it and its children are killed") {
  for (const std::string kind : {"hang_register", "setsid_register"}) {
    CAPTURE(kind);  // setsid_register's grandchild left the process group with setsid()
    const fs::path pids = fresh_pid_dir();
    ScopedEnv env("VYRE_HOSTILE_PID_DIR", pids.c_str());
    const auto start = std::chrono::steady_clock::now();
    const PluginVerification v = vyre::verify_plugin(plugin(kind), hang_options());
    const auto took = std::chrono::steady_clock::now() - start;
    INFO(describe(v));
    CHECK(v.verdict == PluginVerdict::TimedOut);
    CHECK(v.code == PluginRejection::timed_out);
    CHECK(v.stage == "register");
    CHECK(contains(v.reason, "1.5 s"));  // kHangTimeout
    CHECK(v.killed == 1);                // the grandchild
    CHECK(took >= kHangTimeout);
    CHECK(took < 10s);
    const std::optional<long> child = recorded_pid(pids, kind, "child");
    const std::optional<long> grandchild = recorded_pid(pids, kind, "grandchild");
    REQUIRE(child.has_value());
    REQUIRE(grandchild.has_value());
    CHECK(process_gone(*child));
    CHECK(process_gone(*grandchild));
  }
}

TEST_CASE("a plugin that leaves a daemon behind fails verification; the daemon is killed") {
  const fs::path pids = fresh_pid_dir();
  ScopedEnv env("VYRE_HOSTILE_PID_DIR", pids.c_str());
  const PluginVerification v = vyre::verify_plugin(plugin("daemon_register"), options());
  INFO(describe(v));
  CHECK(v.verdict == PluginVerdict::Lingered);
  CHECK(v.code == PluginRejection::left_processes);
  CHECK(v.killed == 1);
  REQUIRE(v.summary.has_value());  // it registered fine: only what it left behind fails it
  const std::optional<long> daemon = recorded_pid(pids, "daemon_register", "grandchild");
  REQUIRE(daemon.has_value());
  CHECK(process_gone(*daemon));
}

TEST_CASE("a child that exited but was never reaped is not a process left running") {
  const PluginVerification v = vyre::verify_plugin(plugin("zombie_register"), options());
  INFO(describe(v));
  CHECK(v.ok());
  CHECK(v.killed == 0);
}

TEST_CASE("a plugin that kills the verifier's supervisor fails, and its own process is killed") {
  const fs::path pids = fresh_pid_dir();
  ScopedEnv env("VYRE_HOSTILE_PID_DIR", pids.c_str());
  const PluginVerification v = vyre::verify_plugin(plugin("kill_parent"), options());
  INFO(describe(v));
  CHECK(v.verdict == PluginVerdict::Crashed);
  CHECK(v.code == PluginRejection::crashed);
  CHECK(v.signal == SIGKILL);
  CHECK(contains(v.reason, "supervisor"));
  const std::optional<long> child = recorded_pid(pids, "kill_parent", "child");
  REQUIRE(child.has_value());
  CHECK(process_gone(*child));
}

TEST_CASE("a report that claims success does not pass a plugin that then crashes or exits") {
  SUBCASE("then crashes: the signal decides") {
    const PluginVerification v = vyre::verify_plugin(plugin("report_then_crash"), options());
    INFO(describe(v));
    CHECK(v.verdict == PluginVerdict::Crashed);
    CHECK(v.code == PluginRejection::crashed);
    CHECK(v.signal == SIGSEGV);
  }
  SUBCASE("then exits with status 0: the report lacks this run's nonce") {
    const PluginVerification v = vyre::verify_plugin(plugin("report_then_exit"), options());
    INFO(describe(v));
    CHECK(v.verdict == PluginVerdict::Forged);
    CHECK(v.code == PluginRejection::forged_report);
  }
}

TEST_CASE("a crash while the library is unloaded fails verification at the unload stage") {
  const PluginVerification v = vyre::verify_plugin(plugin("crash_unload"), options());
  INFO(describe(v));
  CHECK(v.verdict == PluginVerdict::Crashed);
  CHECK(v.code == PluginRejection::crashed);
  CHECK(v.signal == SIGSEGV);
  CHECK(v.stage == "unload");
}

TEST_CASE("the verifier looks like a real load: the host's argv and environment, no marker") {
  const fs::path pids = fresh_pid_dir();
  ScopedEnv env("VYRE_HOSTILE_PID_DIR", pids.c_str());
  const PluginVerification v = vyre::verify_plugin(plugin("detect_verify"), options(true));
  INFO(describe(v));
  CHECK(v.ok());  // it fails registration when it sees a sign of verification
  CHECK(file_text(pids / "detect_verify.argv") == file_text("/proc/self/cmdline"));
  std::string environment;
  for (char** e = environ; *e != nullptr; ++e) environment += std::string(*e) + '\0';
  CHECK(file_text(pids / "detect_verify.environ") == environment);
}

TEST_CASE("a plugin that exits in vyre_backend_register is reported with its exit status") {
  const PluginVerification v = vyre::verify_plugin(plugin("exit_register"), options());
  INFO(describe(v));
  CHECK(v.verdict == PluginVerdict::Exited);
  CHECK(v.code == PluginRejection::exited);
  CHECK(v.exit_status == 3);
  CHECK(v.stage == "register");
  CHECK(contains(v.reason, "status 3"));
}

TEST_CASE("a plugin whose static constructor crashes is reported at the load stage") {
  const PluginVerification v = vyre::verify_plugin(plugin("crash_load"), options());
  INFO(describe(v));
  CHECK(v.verdict == PluginVerdict::Crashed);
  CHECK(v.signal == SIGSEGV);
  CHECK(v.stage == "load");
  CHECK(contains(v.reason, "static constructors"));
}

TEST_CASE("a plugin that throws across the C ABI is rejected, in a child and in-process") {
  const PluginVerification v = vyre::verify_plugin(plugin("throw_register"), options());
  INFO(describe(v));
  CHECK(v.verdict == PluginVerdict::Rejected);
  CHECK(v.code == PluginRejection::exception);

  vyre::RegistryOptions options;
  options.plugin_dirs = {kSafeDir};
  options.use_environment = false;
  options.use_default_dirs = false;
  vyre::Registry registry(options);  // loads throw_register in-process: must not throw
  bool rejected = false;
  for (const vyre::RejectedPlugin& r : registry.rejected())
    if (r.path.filename() == "libvyre_h_throw_register.so") rejected = r.code == PluginRejection::exception;
  CHECK(rejected);
}

TEST_CASE("crashes and hangs in create are found with check_create, and only then") {
  SUBCASE("segfault") {
    CHECK(vyre::verify_plugin(plugin("segv_create"), options(false)).ok());
    const PluginVerification v = vyre::verify_plugin(plugin("segv_create"), options(true));
    INFO(describe(v));
    CHECK(v.verdict == PluginVerdict::Crashed);
    CHECK(v.signal == SIGSEGV);
    CHECK(v.stage == "create");
    REQUIRE(v.summary.has_value());  // registration had succeeded
    CHECK(v.summary->id == "h_segv_create");
  }
  SUBCASE("hang") {
    const PluginVerification v = vyre::verify_plugin(plugin("hang_create"), hang_options(true));
    INFO(describe(v));
    CHECK(v.verdict == PluginVerdict::TimedOut);
    CHECK(v.stage == "create");
  }
}

TEST_CASE("a well-behaved plugin passes with its registration summary") {
  const PluginVerification v = vyre::verify_plugin(plugin("good"), options(true));
  INFO(describe(v));
  REQUIRE(v.ok());
  CHECK(v.stage == "done");
  CHECK(v.reason.empty());
  REQUIRE(v.summary.has_value());
  CHECK(v.summary->id == "h_good");
  CHECK(v.summary->version == "6.6.6");
  CHECK(v.summary->rank == 66);
  CHECK(v.summary->capabilities == VYRE_CAP_DISPATCH);
  CHECK(v.summary->abi_major == VYRE_ABI_VERSION_MAJOR);
  CHECK(v.summary->op_count == 1);
  CHECK(v.create == "ok (hostile test device)");
}

TEST_CASE("a create that fails cleanly is not a failed verification") {
  const PluginVerification v = vyre::verify_plugin(plugin("nodevice"), options(true));
  INFO(describe(v));
  CHECK(v.ok());
  CHECK(v.create.starts_with("failed: "));
  CHECK(contains(v.create, "never present"));
}

TEST_CASE("files that are not plugins are rejected with the loader's reason") {
  const PluginVerification v = vyre::verify_plugin(kSafeDir / "libvyre_h_garbage.so", options());
  INFO(describe(v));
  CHECK(v.verdict == PluginVerdict::Rejected);
  CHECK(contains(v.reason, "cannot load"));
  const PluginVerification missing = vyre::verify_plugin(kSafeDir / "libvyre_h_missing.so", options());
  CHECK(missing.verdict == PluginVerdict::Rejected);
}

TEST_CASE("a verifier child that cannot start, or is not a verifier, is a clear error") {
  PluginVerifyOptions o = options();
  o.helper = "/nonexistent/vyre";
  const PluginVerification missing = vyre::verify_plugin(plugin("good"), o);
  CHECK(missing.verdict == PluginVerdict::SpawnFailed);
  CHECK(contains(missing.reason, "cannot start"));
  o.helper = "/bin/true";
  const PluginVerification not_verifier = vyre::verify_plugin(plugin("good"), o);
  CHECK(not_verifier.verdict == PluginVerdict::SpawnFailed);
  CHECK(contains(not_verifier.reason, "never reported"));
}

TEST_CASE("verify_plugins checks many plugins at once, each with its own verdict") {
  const std::vector<fs::path> files = {plugin("good"),          plugin("segv_register"),
                                       plugin("hang_register"), plugin("abort_register"),
                                       plugin("hang_create"),   plugin("nodevice")};
  const auto start = std::chrono::steady_clock::now();
  const std::vector<PluginVerification> v = vyre::verify_plugins(files, options(true, 3s));
  CHECK(std::chrono::steady_clock::now() - start < 5500ms);  // in parallel: not two timeouts in a row
  REQUIRE(v.size() == files.size());
  for (std::size_t i = 0; i < v.size(); ++i) CHECK(v[i].path == files[i]);
  CHECK(v[0].ok());
  CHECK(v[1].verdict == PluginVerdict::Crashed);
  CHECK(v[2].verdict == PluginVerdict::TimedOut);
  CHECK(v[3].verdict == PluginVerdict::Crashed);
  CHECK(v[4].verdict == PluginVerdict::TimedOut);
  CHECK(v[5].ok());
}

TEST_CASE("discover_plugin_files lists what a registry would load, without loading it") {
  vyre::RegistryOptions options;
  options.plugin_dirs = {kHostileDir, kSafeDir, kHostileDir};
  options.use_environment = false;
  options.use_default_dirs = false;
  const std::vector<fs::path> files = vyre::discover_plugin_files(options);
  CHECK(files.size() == 14 + 5);  // each file once
  CHECK(files.front().filename() == "libvyre_h_abort_register.so");  // sorted within a directory
}

TEST_CASE("a registry with verify_in_child rejects hostile plugins with codes and loads the rest") {
  vyre::RegistryOptions options;
  options.plugin_dirs = {kHostileDir, kSafeDir};
  options.use_environment = false;
  options.use_default_dirs = false;
  options.verify_in_child = true;
  options.verify = ::options(true, 3s);
  vyre::Registry registry(options);  // would crash or hang this process without verify_in_child
  CHECK(registry.ids() == std::vector<std::string>{"h_detect_verify", "h_good", "h_nodevice", "h_zombie_register"});
  std::map<std::string, PluginRejection> codes;
  std::map<std::string, std::string> reasons;
  for (const vyre::RejectedPlugin& r : registry.rejected()) {
    codes[r.path.filename().string()] = r.code;
    reasons[r.path.filename().string()] = r.reason;
  }
  const std::map<std::string, PluginRejection> expected = {
      {"libvyre_h_segv_register.so", PluginRejection::crashed},
      {"libvyre_h_abort_register.so", PluginRejection::crashed},
      {"libvyre_h_hang_register.so", PluginRejection::timed_out},
      {"libvyre_h_setsid_register.so", PluginRejection::timed_out},
      {"libvyre_h_exit_register.so", PluginRejection::exited},
      {"libvyre_h_crash_load.so", PluginRejection::crashed},
      {"libvyre_h_segv_create.so", PluginRejection::crashed},
      {"libvyre_h_hang_create.so", PluginRejection::timed_out},
      {"libvyre_h_report_then_crash.so", PluginRejection::crashed},
      {"libvyre_h_report_then_exit.so", PluginRejection::forged_report},
      {"libvyre_h_daemon_register.so", PluginRejection::left_processes},
      {"libvyre_h_kill_parent.so", PluginRejection::crashed},
      {"libvyre_h_crash_unload.so", PluginRejection::crashed},
      {"libvyre_h_throw_register.so", PluginRejection::exception},
      {"libvyre_h_garbage.so", PluginRejection::load_failed},
  };
  CHECK(codes == expected);
  CHECK(contains(reasons["libvyre_h_segv_create.so"], "create"));
  vyre::host::Backend good = registry.create("h_good");  // the survivors work in-process
  CHECK(std::string(good.device_profile().name) == "hostile test device");
}

TEST_CASE("the registry verifies plugin files in parallel: hanging plugins cost one timeout") {
  vyre::RegistryOptions options;
  options.plugin_dirs = {kHostileDir, kSafeDir};  // hang_register, setsid_register, hang_create hang
  options.use_environment = false;
  options.use_default_dirs = false;
  options.verify_in_child = true;
  constexpr auto kTimeout = 4s;
  options.verify = ::options(true, kTimeout);
  const auto start = std::chrono::steady_clock::now();
  vyre::Registry registry(options);
  const auto took = std::chrono::steady_clock::now() - start;
  CHECK(registry.ids() == std::vector<std::string>{"h_detect_verify", "h_good", "h_nodevice", "h_zombie_register"});
  CHECK(took >= kTimeout);
  CHECK(took < 2 * kTimeout);  // one after the other they would take at least three timeouts
}

TEST_CASE("VYRE_VERIFY_PLUGINS=1 verifies registration; =create also creates an instance") {
  ScopedEnv path("VYRE_PLUGIN_PATH", nullptr);
  ScopedEnv backend("VYRE_BACKEND", nullptr);
  ScopedEnv certs("VYRE_CERT_DIR", nullptr);
  vyre::RegistryOptions options;
  options.plugin_dirs = {kHostileDir};
  options.use_default_dirs = false;
  options.verify.timeout = 3s;
  auto rejected_code = [](const vyre::Registry& registry, const std::string& file) -> std::optional<PluginRejection> {
    for (const vyre::RejectedPlugin& r : registry.rejected())
      if (r.path.filename() == file) return r.code;
    return std::nullopt;
  };
  SUBCASE("1: the create-time crashes load (and would crash on first use)") {
    ScopedEnv verify("VYRE_VERIFY_PLUGINS", "1");
    vyre::Registry registry(options);
    CHECK(registry.ids() == std::vector<std::string>{"h_hang_create", "h_segv_create", "h_zombie_register"});
    CHECK(registry.rejected().size() == 11);
  }
  SUBCASE("create: they are rejected too, with their codes") {
    ScopedEnv verify("VYRE_VERIFY_PLUGINS", "create");
    vyre::Registry registry(options);
    CHECK(registry.ids() == std::vector<std::string>{"h_zombie_register"});
    CHECK(registry.rejected().size() == 13);
    CHECK(rejected_code(registry, "libvyre_h_segv_create.so") == PluginRejection::crashed);
    CHECK(rejected_code(registry, "libvyre_h_hang_create.so") == PluginRejection::timed_out);
  }
  SUBCASE("0 and unset: nothing is verified (so nothing hostile may be on the path)") {
    ScopedEnv verify("VYRE_VERIFY_PLUGINS", "0");
    vyre::RegistryOptions safe = options;
    safe.plugin_dirs = {kSafeDir};
    vyre::Registry registry(safe);
    CHECK(registry.ids() == std::vector<std::string>{"h_detect_verify", "h_good", "h_nodevice"});
  }
}

// ---- the CLI ----------------------------------------------------------------------------------

namespace {

struct CliResult {
  int exit_code = -1;
  bool signaled = false;
  std::string out;
};

CliResult vyre_cli(const std::string& args) {
  const fs::path out = fs::path(VYRE_RELIABILITY_WORK_DIR) / "cli_out.txt";
  fs::create_directories(out.parent_path());
  const std::string command = "env -u VYRE_PLUGIN_PATH -u VYRE_BACKEND -u VYRE_VERIFY_PLUGINS '" VYRE_CLI
                              "' --no-default-plugins " + args + " >'" + out.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  CliResult r;
  r.signaled = WIFSIGNALED(status);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  r.out = text.str();
  return r;
}

}  // namespace

TEST_CASE("vyre plugins verify reports every hostile plugin by name and survives") {
  const CliResult r = vyre_cli("plugins verify '" + kHostileDir.string() + "' '" + kSafeDir.string() +
                               "' --timeout 3 --create");
  INFO(r.out);
  CHECK_FALSE(r.signaled);
  CHECK(r.exit_code == 1);
  CHECK(contains(r.out, "verifying 19 plugin files"));
  CHECK(contains(r.out, "crashed  " + plugin("segv_register").string()));
  CHECK(contains(r.out, "crashed  " + plugin("abort_register").string()));
  CHECK(contains(r.out, "timeout  " + plugin("hang_register").string()));
  CHECK(contains(r.out, "timeout  " + plugin("setsid_register").string()));
  CHECK(contains(r.out, "exited   " + plugin("exit_register").string()));
  CHECK(contains(r.out, "crashed  " + plugin("crash_load").string()));
  CHECK(contains(r.out, "crashed  " + plugin("segv_create").string()));
  CHECK(contains(r.out, "timeout  " + plugin("hang_create").string()));
  CHECK(contains(r.out, "crashed  " + plugin("report_then_crash").string()));
  CHECK(contains(r.out, "forged   " + plugin("report_then_exit").string()));
  CHECK(contains(r.out, "lingered " + plugin("daemon_register").string()));
  CHECK(contains(r.out, "crashed  " + plugin("kill_parent").string()));
  CHECK(contains(r.out, "crashed  " + plugin("crash_unload").string()));
  CHECK(contains(r.out, "rejected " + plugin("throw_register").string()));
  CHECK(contains(r.out, "ok       " + plugin("good").string()));
  CHECK(contains(r.out, "ok       " + plugin("detect_verify").string()));
  CHECK(contains(r.out, "registered: h_good 6.6.6, rank 66, ABI 1.1, 1 ops"));
  CHECK(contains(r.out, "reason: crashed with SIGSEGV"));
  CHECK(contains(r.out, "code: forged_report"));
  CHECK(contains(r.out, "code: left_processes"));
  CHECK(contains(r.out, "create: failed: "));
  CHECK(contains(r.out, "ok       " + plugin("zombie_register").string()));
  CHECK(contains(r.out, "4 passed, 15 failed"));
}

TEST_CASE("vyre plugins verify passes good plugins and finds plugins through --plugins") {
  const CliResult one = vyre_cli("plugins verify '" + plugin("good").string() + "'");
  INFO(one.out);
  CHECK(one.exit_code == 0);
  CHECK(contains(one.out, "registered: h_good 6.6.6"));
  CHECK(contains(one.out, "capabilities: dispatch"));
  const CliResult found = vyre_cli("--plugins '" + kHostileDir.string() + "' plugins verify --timeout 3");
  INFO(found.out);
  CHECK(found.exit_code == 1);
  CHECK(contains(found.out, "verifying 14 plugin files"));
}

TEST_CASE("vyre plugins verify usage errors") {
  CHECK(vyre_cli("plugins").exit_code == 2);
  CHECK(vyre_cli("plugins check").exit_code == 2);
  CHECK(vyre_cli("plugins verify --timeout 0").exit_code == 2);
  CHECK(vyre_cli("plugins verify --timeout abc").exit_code == 2);
  CHECK(vyre_cli("plugins verify --bogus").exit_code == 2);
  const CliResult missing = vyre_cli("plugins verify /nonexistent/dir");
  CHECK(missing.exit_code == 1);
  CHECK(contains(missing.out, "Fix:"));
}
