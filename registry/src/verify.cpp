// Plugin verification in a child process (vyre/plugin_verify.hpp): the load-time hook that turns
// any program linking the registry into a verifier supervisor, and turning what the supervisor
// and the verifier child said, and how they ended, into a verdict.
#include "vyre/plugin_verify.hpp"

#include <fmt/core.h>
#include <string.h>  // sigabbrev_np, sigdescr_np

#include <algorithm>
#include <atomic>
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

// Runs before main() in every program that links this file; returns at once unless this process
// is a verifier supervisor (verify_protocol.hpp), which never returns.
[[gnu::constructor]] void plugin_verify_hook() { registry_detail::run_supervisor_if_requested(); }

// The report lines of the verifier child, parsed.
struct Report {
  bool hello = false;
  std::vector<std::string> done_nonces;  // every "done" line (a plugin may forge some)
  std::string stage;
  std::optional<PluginSummary> summary;
  std::optional<std::pair<PluginRejection, std::string>> rejected;
  std::string create;
};

// The supervisor's lines: how the child ended and what was left.
struct SupervisorReport {
  enum class End { None, Exit, Signal, Lost } end = End::None;
  int value = 0;
  std::size_t leftover = 0;
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

std::pair<PluginRejection, std::string> parse_rejected(const std::vector<std::string>& f) {
  const PluginRejection code =
      f.size() > 1 ? parse_plugin_rejection(f[1]).value_or(PluginRejection::invalid_plugin)
                   : PluginRejection::invalid_plugin;
  return {code, f.size() > 2 ? f[2] : std::string("rejected")};
}

Report parse_report(const std::string& text) {
  Report report;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const std::vector<std::string> f = split_tabs(line);
    const std::string rest = f.size() > 1 ? line.substr(f[0].size() + 1) : std::string();
    if (f[0] == "hello") report.hello = true;
    else if (f[0] == "done") report.done_nonces.push_back(rest);
    else if (f[0] == "stage") report.stage = rest;
    else if (f[0] == "summary") report.summary = parse_summary(f);
    else if (f[0] == "rejected" && !report.rejected) report.rejected = parse_rejected(f);
    else if (f[0] == "create") report.create = rest;
  }
  return report;
}

SupervisorReport parse_supervisor(const std::string& text) {
  SupervisorReport s;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string first, second;
    words >> first >> second;
    if (first == "child" && second == "exit") s.end = SupervisorReport::End::Exit;
    else if (first == "child" && second == "signal") s.end = SupervisorReport::End::Signal;
    else if (first == "child" && second == "lost") s.end = SupervisorReport::End::Lost;
    else if (first == "leftover") s.leftover = static_cast<std::size_t>(number_or_zero(second));
    if (first == "child" && second != "lost") words >> s.value;
  }
  return s;
}

std::string stage_description(const std::string& stage) {
  if (stage == "load") return "while loading the library (dlopen, its static constructors)";
  if (stage == "register")
    return "in vyre_backend_register (or while the registry read what it registered)";
  if (stage == "create") return "in create, device_profile or destroy of a default instance";
  if (stage == "unload") return "while unloading the library (dlclose, its static destructors)";
  if (stage == "done") return "after every stage had finished";
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

void set(PluginVerification& v, PluginVerdict verdict, PluginRejection code, std::string reason) {
  v.verdict = verdict;
  v.code = code;
  v.reason = std::move(reason);
}

void judge_timeout(PluginVerification& v, const SupervisorReport& s, const PluginVerifyOptions& options) {
  const std::string where = stage_description(v.stage);
  const std::string killed =
      s.leftover > 0 ? fmt::format("the child and {} process(es) it started were killed", s.leftover)
                     : std::string("the child was killed");
  set(v, PluginVerdict::TimedOut, PluginRejection::timed_out,
      fmt::format("no answer within {} {}; {}", seconds(options.timeout), where, killed));
}

// The supervisor itself ended without saying how the child did: the plugin killed its parent.
void judge_lost_supervisor(PluginVerification& v, const registry_detail::ChildOutcome& child) {
  const std::string where = stage_description(v.stage);
  if (child.signal != 0) {
    v.signal = child.signal;
    set(v, PluginVerdict::Crashed, PluginRejection::crashed,
        fmt::format("the verifier's supervisor (the child's parent) was killed with {} {}", describe_signal(child.signal),
                    where));
    return;
  }
  v.exit_status = child.exit_status;
  set(v, PluginVerdict::Exited, PluginRejection::exited,
      fmt::format("the verifier's supervisor exited with status {} without a verdict {}", child.exit_status, where));
}

// How the verifier child ended decides first; a clean exit then needs a complete, genuine report.
void judge_child(PluginVerification& v, const Report& report, const SupervisorReport& s,
                 const registry_detail::ChildOutcome& child) {
  const std::string where = stage_description(v.stage);
  if (s.end == SupervisorReport::End::Signal) {
    v.signal = s.value;
    return set(v, PluginVerdict::Crashed, PluginRejection::crashed,
               with_output(fmt::format("crashed with {} {}", describe_signal(s.value), where), child.output));
  }
  if (s.end != SupervisorReport::End::Exit || s.value != 0 || report.done_nonces.empty()) {
    v.exit_status = s.end == SupervisorReport::End::Exit ? s.value : -1;
    return set(v, PluginVerdict::Exited, PluginRejection::exited,
               with_output(fmt::format("the process exited with status {} {}{}", v.exit_status, where,
                                       report.done_nonces.empty() ? " before finishing" : ""),
                           child.output));
  }
  const bool genuine = std::all_of(report.done_nonces.begin(), report.done_nonces.end(),
                                   [&](const std::string& n) { return n == child.nonce; });
  if (!genuine)
    return set(v, PluginVerdict::Forged, PluginRejection::forged_report,
               "its report claims success, but not with the nonce of this run: the plugin wrote it "
               "(or something it started did)");
  if (s.leftover > 0)
    return set(v, PluginVerdict::Lingered, PluginRejection::left_processes,
               fmt::format("it left {} process(es) running after it finished; they were killed", s.leftover));
  if (report.rejected) return set(v, PluginVerdict::Rejected, report.rejected->first, report.rejected->second);
  v.verdict = PluginVerdict::Ok;
  v.reason.clear();
}

void judge(PluginVerification& v, const registry_detail::ChildOutcome& child,
           const PluginVerifyOptions& options, const fs::path& helper) {
  v.output_tail = child.output;
  if (!child.spawn_error.empty()) return set(v, PluginVerdict::SpawnFailed, PluginRejection::verify_failed, child.spawn_error);
  const Report report = parse_report(child.report);
  const SupervisorReport supervisor = parse_supervisor(child.supervisor);
  if (!report.hello && supervisor.end == SupervisorReport::End::None && !child.timed_out)
    return set(v, PluginVerdict::SpawnFailed, PluginRejection::verify_failed,
               with_output(fmt::format("the plugin verifier ({}) never reported; it does not link "
                                       "libvyre_registry's verifier or could not start. Fix: set "
                                       "PluginVerifyOptions::helper to a vyre tool (e.g. the `vyre` binary)",
                                       helper.empty() ? std::string("this program") : helper.string()),
                           child.output));
  v.stage = report.done_nonces.empty() ? report.stage : "done";
  v.summary = report.summary;
  v.create = report.create;
  v.killed = supervisor.leftover;
  if (child.timed_out) return judge_timeout(v, supervisor, options);
  if (supervisor.end == SupervisorReport::End::None) return judge_lost_supervisor(v, child);
  judge_child(v, report, supervisor, child);
}

}  // namespace

std::string_view plugin_verdict_name(PluginVerdict verdict) {
  switch (verdict) {
    case PluginVerdict::Ok: return "ok";
    case PluginVerdict::Rejected: return "rejected";
    case PluginVerdict::Crashed: return "crashed";
    case PluginVerdict::TimedOut: return "timeout";
    case PluginVerdict::Exited: return "exited";
    case PluginVerdict::Forged: return "forged";
    case PluginVerdict::Lingered: return "lingered";
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
  const std::string mode(options.check_create ? registry_detail::kVerifyModeCreate
                                              : registry_detail::kVerifyModeRegister);
  // dlopen searches the library path for a name without a slash: hand the child an absolute path.
  std::error_code ec;
  const fs::path absolute = fs::absolute(plugin, ec);
  const registry_detail::ChildOutcome child =
      registry_detail::run_verifier(options.helper, ec ? plugin : absolute, mode, options.timeout);
  judge(v, child, options, options.helper);
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
