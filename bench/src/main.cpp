// vyre-bench: the vyre side of the performance cases (bench/README.md).
#include <fmt/core.h>

#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "cases.hpp"
#include "context.hpp"
#include "options.hpp"
#include "result_json.hpp"
#include "vyre/error.hpp"
#include "vyre/registry.hpp"

namespace {

using vyre::bench::CaseInfo;
using vyre::bench::CaseResult;
using vyre::bench::Options;

std::unique_ptr<vyre::Registry> make_registry(const Options& options) {
  vyre::RegistryOptions registry_options;
  registry_options.plugin_dirs = options.plugin_dirs;
  registry_options.log = vyre::stderr_log_sink(options.verbosity > 1   ? VYRE_LOG_DEBUG
                                               : options.verbosity > 0 ? VYRE_LOG_INFO
                                                                       : VYRE_LOG_ERROR);
  return std::make_unique<vyre::Registry>(registry_options);
}

// The cases named on the command line, in table order; throws UsageError for an unknown id.
std::vector<const CaseInfo*> selected_cases(const Options& options) {
  std::vector<const CaseInfo*> out;
  const auto& table = vyre::bench::case_table();
  for (const std::string& id : options.cases) {
    bool known = id == "all" || id == "kernels" || vyre::bench::is_k13_function_case(id);
    for (const auto& c : table) known = known || c.id == id;
    if (!known) throw vyre::bench::UsageError(fmt::format("unknown case '{}' (see --list)", id));
  }
  for (const auto& c : table) {
    for (const std::string& id : options.cases) {
      const bool kernel = c.id.starts_with("K");
      const bool k13_function = c.id == "K13" && vyre::bench::is_k13_function_case(id);
      if ((id == "all" && !kernel) || (id == "kernels" && kernel) || id == c.id || k13_function) {
        out.push_back(&c);
        break;
      }
    }
  }
  return out;
}

std::vector<CaseResult> run_case(const CaseInfo& info, vyre::bench::Context& context) {
  context.note(fmt::format("{}: {}", info.id, info.title));
  try {
    return info.run(context);
  } catch (const std::exception& e) {
    CaseResult failed;
    failed.id = std::string(info.id);
    failed.title = std::string(info.title);
    failed.backend = info.id.starts_with("R") ? "reference_cpu" : context.options().backend;
    if (info.id.starts_with("K")) failed.title += " (the vyre side did not finish)";
    failed.error = e.what();
    context.note(fmt::format("{} failed: {}", info.id, e.what()));
    return {failed};
  }
}

void print_table(const std::vector<CaseResult>& results) {
  fmt::print("{:<8} {:>12} {:>12} {:>12} {:<12} {:<14} {}\n", "case", "median", "p10", "p90", "unit", "backend",
             "check");
  for (const auto& r : results) {
    if (!r.error.empty()) {
      fmt::print("{:<8} {:>12} {:>12} {:>12} {:<12} {:<14} ERROR: {}\n", r.id, "-", "-", "-", "-", r.backend, r.error);
      continue;
    }
    fmt::print("{:<8} {:>12.4g} {:>12.4g} {:>12.4g} {:<12} {:<14} {}\n", r.id, r.value.median, r.value.p10,
               r.value.p90, r.unit, r.backend, r.verification);
  }
}

std::optional<vyre_device_profile> main_device(vyre::bench::Context& context) {
  try {
    return context.main_backend().device_profile();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

int run(const Options& options) {
  auto registry = make_registry(options);
  if (options.p5_child) return vyre::bench::run_p5_child(options, *registry);
  const auto cases = selected_cases(options);
  vyre::bench::Context context(options, *registry);
  std::vector<CaseResult> results;
  for (const CaseInfo* info : cases)
    for (auto& r : run_case(*info, context)) results.push_back(std::move(r));
  print_table(results);
  if (options.json_out)
    vyre::bench::write_json_file(*options.json_out, vyre::bench::run_json(options, main_device(context), results));
  bool ok = true;
  for (const auto& r : results) ok = ok && r.error.empty() && r.verified;
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options options = vyre::bench::parse_options(std::vector<std::string>(argv + 1, argv + argc));
    if (options.help) {
      fmt::print("{}", vyre::bench::usage_text());
      return 0;
    }
    if (options.list) {
      for (const auto& c : vyre::bench::case_table()) fmt::print("{}  {}\n", c.id, c.title);
      return 0;
    }
    return run(options);
  } catch (const vyre::bench::UsageError& e) {
    fmt::print(stderr, "vyre-bench: {}\n\n{}", e.what(), vyre::bench::usage_text());
    return 2;
  } catch (...) {  // with its stable code and a Fix (vyre::Error, bad_alloc, iostream, ...)
    const vyre::Error e = vyre::current_exception_as_error();
    fmt::print(stderr, "vyre-bench: error ({}): {}\n", vyre::status_name(e.code()), e.what());
    return 1;
  }
}
