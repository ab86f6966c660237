// Plugin verification in a child process (vyre/plugin_verify.hpp): the load-time hook that turns
// any program linking the registry into a verifier child, spawning and watching the child, and
// turning its report into a verdict.
#include "vyre/plugin_verify.hpp"

#include <fmt/core.h>
#include <string.h>  // sigabbrev_np, sigdescr_np
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <system_error>
#include <thread>

#include "discovery.hpp"
#include "verify_child_process.hpp"
#include "verify_protocol.hpp"
#include "vyre/registry.hpp"

namespace vyre {

namespace fs = std::filesystem;

namespace {

// Runs before main() in every program that links this file. In a verifier child (argv[1] is the
// marker and the environment says so) it verifies and exits; otherwise it does nothing. glibc
// passes argc/argv to ELF constructors.
[[gnu::constructor]] void plugin_verify_child_hook(int argc, char** argv) {
  if (argc < 4 || argv == nullptr || argv[1] == nullptr) return;
  if (kPluginVerifyChildMarker != argv[1]) return;
  const char* flag = std::getenv(registry_detail::kVerifyChildEnv);
  if (flag == nullptr || std::strcmp(flag, "1") != 0) return;
  ::_exit(registry_detail::run_verify_child(argv[2], argv[3]));
}

// The report lines of a child, parsed.
struct Report {
  bool hello = false;
  bool done = false;
  std::string stage;
  std::optional<PluginSummary> summary;
  std::optional<std::string> rejected;
  std::string create;
};

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab - start));
    if (tab == std::string::npos) return fields;
    start = tab + 1;
  }
}

std::uint64_t number_or_zero(const std::string& text) {
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    return 0;
  }
}

std::optional<PluginSummary> parse_summary(const std::vector<std::string>& f) {
  if (f.size() != 8) return std::nullopt;
  PluginSummary s;
  s.id = f[1];
  s.version = f[2];
  s.rank = static_cast<std::uint32_t>(number_or_zero(f[3]));
  s.capabilities = number_or_zero(f[4]);
  s.abi_major = static_cast<std::uint32_t>(number_or_zero(f[5]));
  s.abi_minor = static_cast<std::uint32_t>(number_or_zero(f[6]));
  s.op_count = number_or_zero(f[7]);
  return s;
}

Report parse_report(const std::string& text) {
  Report report;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const std::vector<std::string> f = split_tabs(line);
    const std::string rest = f.size() > 1 ? line.substr(f[0].size() + 1) : std::string();
    if (f[0] == "hello") report.hello = true;
    else if (f[0] == "done") report.done = true;
    else if (f[0] == "stage") report.stage = rest;
    else if (f[0] == "summary") report.summary = parse_summary(f);
    else if (f[0] == "rejected") report.rejected = rest;
    else if (f[0] == "create") report.create = rest;
  }
  return report;
}

std::string stage_description(const std::string& stage) {
  if (stage == "load") return "while loading the library (dlopen, its static constructors)";
  if (stage == "register")
    return "in vyre_backend_register (or while the registry read what it registered)";
  if (stage == "create") return "in create, device_profile or destroy of a default instance";
  return "after its last reported stage";
}

// The last non-empty line the child printed, clipped, for one-line reasons.
std::string last_output_line(const std::string& output) {
  std::istringstream lines(output);
  std::string last;
  for (std::string line; std::getline(lines, line);)
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  if (last.size() > 200) last = last.substr(0, 200) + "...";
  return last;
}

std::string with_output(std::string reason, const std::string& output) {
  const std::string last = last_output_line(output);
  if (!last.empty()) reason += fmt::format("; its last output: \"{}\"", last);
  return reason;
}

std::string seconds(std::chrono::milliseconds timeout) {
  return fmt::format("{:g} s", static_cast<double>(timeout.count()) / 1000.0);
}

void judge_started(PluginVerification& v, const Report& report, const registry_detail::ChildOutcome& child,
                   const PluginVerifyOptions& options) {
  v.stage = report.done ? "done" : report.stage;
  v.summary = report.summary;
  v.create = report.create;
  const std::string where = stage_description(v.stage);
  if (report.done) {
    v.verdict = report.rejected ? PluginVerdict::Rejected : PluginVerdict::Ok;
    if (report.rejected) v.reason = *report.rejected;
    return;
  }
  if (child.timed_out) {
    v.verdict = PluginVerdict::TimedOut;
    v.reason = fmt::format("no answer within {} {}; the child was killed", seconds(options.timeout), where);
    return;
  }
  if (child.signal != 0) {
    v.verdict = PluginVerdict::Crashed;
    v.signal = child.signal;
    v.reason = with_output(fmt::format("crashed with {} {}", describe_signal(child.signal), where),
                           child.output);
    return;
  }
  v.verdict = PluginVerdict::Exited;
  v.exit_status = child.exit_status;
  v.reason = with_output(fmt::format("the process exited with status {} {} before finishing",
                                     child.exit_status, where),
                         child.output);
}

void judge(PluginVerification& v, const registry_detail::ChildOutcome& child,
           const PluginVerifyOptions& options, const fs::path& helper) {
  v.output_tail = child.output;
  if (!child.spawn_error.empty()) {
    v.verdict = PluginVerdict::SpawnFailed;
    v.reason = child.spawn_error;
    return;
  }
  const Report report = parse_report(child.report);
  if (report.hello) return judge_started(v, report, child, options);
  v.verdict = PluginVerdict::SpawnFailed;
  v.reason = with_output(
      fmt::format("the verifier child ({}) never reported; it does not link libvyre_registry's "
                  "verifier or could not start. Fix: set PluginVerifyOptions::helper to a vyre tool "
                  "(e.g. the `vyre` binary)",
                  helper.string()),
      child.output);
}

}  // namespace

std::string_view plugin_verdict_name(PluginVerdict verdict) {
  switch (verdict) {
    case PluginVerdict::Ok: return "ok";
    case PluginVerdict::Rejected: return "rejected";
    case PluginVerdict::Crashed: return "crashed";
    case PluginVerdict::TimedOut: return "timeout";
    case PluginVerdict::Exited: return "exited";
    case PluginVerdict::SpawnFailed: return "error";
  }
  return "error";
}

std::string describe_signal(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  const char* text = ::sigdescr_np(signal);
  if (abbrev == nullptr) return fmt::format("signal {}", signal);
  return fmt::format("SIG{} ({})", abbrev, text != nullptr ? text : "unknown");
}

PluginVerification verify_plugin(const fs::path& plugin, const PluginVerifyOptions& options) {
  PluginVerification v;
  v.path = plugin;
  const fs::path helper = options.helper.empty() ? fs::path("/proc/self/exe") : options.helper;
  const std::string mode(options.check_create ? registry_detail::kVerifyModeCreate
                                              : registry_detail::kVerifyModeRegister);
  // dlopen searches the library path for a name without a slash: hand the child an absolute path.
  std::error_code ec;
  const fs::path absolute = fs::absolute(plugin, ec);
  const registry_detail::ChildOutcome child =
      registry_detail::run_verifier_child(helper, ec ? plugin : absolute, mode, options.timeout);
  judge(v, child, options, helper);
  return v;
}

std::vector<PluginVerification> verify_plugins(const std::vector<fs::path>& plugins,
                                               const PluginVerifyOptions& options) {
  // Children mostly wait (timeouts, device probes), so run more than there are cores, but bounded.
  constexpr std::size_t kMaxChildren = 16;
  std::vector<PluginVerification> results(plugins.size());
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  const std::size_t workers = std::min(plugins.size(), kMaxChildren);
  for (std::size_t w = 0; w < workers; ++w)
    threads.emplace_back([&] {
      for (std::size_t i = next++; i < plugins.size(); i = next++) results[i] = verify_plugin(plugins[i], options);
    });
  for (std::thread& t : threads) t.join();
  return results;
}

std::vector<fs::path> discover_plugin_files(const RegistryOptions& options) {
  return registry_detail::discover(options).files;
}

}  // namespace vyre
