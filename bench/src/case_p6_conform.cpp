// P6: the wall time of `vyre-conform --backend <id>` (the full default run), in a child process.
// Its log and certificate go to --log-dir when given; the last lines of its output go in the JSON.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "case_support.hpp"
#include "cases.hpp"
#include "subprocess.hpp"

namespace vyre::bench {
namespace {

std::filesystem::path conform_binary(const Context& context) {
  if (context.options().conform) return *context.options().conform;
  return context.self().parent_path() / "vyre-conform";
}

std::filesystem::path certificate_dir(const Context& context) {
  if (context.options().log_dir) return *context.options().log_dir / "conform-certs";
  return std::filesystem::temp_directory_path() / fmt::format("vyre-bench-certs-{}", ::getpid());
}

std::string last_lines(const std::string& text, std::size_t count) {
  std::size_t start = text.size();
  for (std::size_t seen = 0; start > 0 && seen <= count;) {
    --start;
    if (text[start] == '\n') ++seen;
  }
  return text.substr(start == 0 ? 0 : start + 1);
}

}  // namespace

std::vector<CaseResult> run_p6_conform(Context& context) {
  const Options& options = context.options();
  CaseResult result = start_case("P6", "full default conform", options.backend, "s", "lower");

  ProcessSpec spec;
  spec.argv = {conform_binary(context).string(), "--backend", options.backend, "--no-progress", "--out",
               certificate_dir(context).string()};
  for (const auto& dir : options.plugin_dirs) {
    spec.argv.push_back("--plugins");
    spec.argv.push_back(std::filesystem::absolute(dir).string());
  }
  for (const auto& glob : options.conform_ops) {
    spec.argv.push_back("--ops");
    spec.argv.push_back(glob);
  }
  spec.merge_stderr = true;
  spec.timeout_s = options.conform_timeout_s;
  context.note(fmt::format("P6: {}", fmt::join(spec.argv, " ")));
  const ProcessResult run = run_process(spec);

  if (options.log_dir) {
    std::filesystem::create_directories(*options.log_dir);
    std::ofstream(*options.log_dir / "conform.log") << run.output;
  } else {
    std::error_code ignored;
    std::filesystem::remove_all(certificate_dir(context), ignored);
  }
  const std::vector<double> seconds = {run.wall_s * 1e9};
  set_time_figure(result, seconds, 1e-9);
  result.verified = run.exit_code == 0 && !run.timed_out;
  result.verification = checked(result.verified, fmt::format("vyre-conform exit status {}{}{}", run.exit_code,
                                                             run.signal != 0 ? fmt::format(", signal {}", run.signal) : "",
                                                             run.timed_out ? ", stopped at the time limit" : ""));
  result.extra["command"] = fmt::format("{}", fmt::join(spec.argv, " "));
  result.extra["exit_code"] = run.exit_code;
  result.extra["timed_out"] = run.timed_out;
  result.extra["output_tail"] = last_lines(run.output, 25);
  result.extra["ops_filter"] = options.conform_ops.empty() ? "all (default run)" : fmt::format("{}", fmt::join(options.conform_ops, " "));
  return {result};
}

}  // namespace vyre::bench
