// P5: the first dispatch of a 50-statement program nobody has compiled before, in a new process:
// cold (CUDA_CACHE_PATH a fresh empty directory) and warm (a second new process, same program,
// same CUDA_CACHE_PATH, so the driver's JIT disk cache has the machine code). Each sample is one
// child vyre-bench (--p5-child) timing compile() + the first host dispatch; backend creation
// (driver init, context) is reported beside it, not in it.
#include <stdlib.h>

#include <fmt/core.h>

#include <filesystem>
#include <random>

#include "case_support.hpp"
#include "cases.hpp"
#include "clock.hpp"
#include "subprocess.hpp"

namespace vyre::bench {
namespace {

struct ChildRun {
  double first_total_ns = 0;
  double compile_ns = 0;
  double create_ns = 0;
  bool verified = false;
  boost::json::object json;
};

std::filesystem::path fresh_cache_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "vyre-bench-jit-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for the JIT cache directory");
  return pattern;
}

// The child prints its JSON object as its last line.
std::string last_line(const std::string& output) {
  std::string_view text = output;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  const std::size_t newline = text.rfind('\n');
  return std::string(newline == std::string_view::npos ? text : text.substr(newline + 1));
}

double number(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_number() ? v->to_number<double>() : 0.0;
}

ChildRun run_child(const Context& context, std::uint32_t salt, const std::filesystem::path& cache_dir) {
  ProcessSpec spec;
  spec.argv = {context.self().string(), "--p5-child", "--salt", std::to_string(salt),
               "--backend", context.options().backend};
  for (const std::string& a : plugin_arguments(context.options())) spec.argv.push_back(a);
  spec.environment = {{"CUDA_CACHE_PATH", cache_dir.string()}, {"CUDA_CACHE_DISABLE", "0"}};
  spec.timeout_s = 120;
  const ProcessResult process = run_process(spec);
  if (process.exit_code != 0 || process.output.empty())
    throw std::runtime_error(fmt::format("the P5 child exited with {} (signal {}{}): {}", process.exit_code,
                                         process.signal, process.timed_out ? ", timed out" : "", process.output));
  ChildRun run;
  run.json = boost::json::parse(last_line(process.output)).as_object();
  if (const auto* error = run.json.if_contains("error"))
    throw std::runtime_error(fmt::format("the P5 child failed: {}", boost::json::serialize(*error)));
  run.first_total_ns = number(run.json, "first_total_ns");
  run.compile_ns = number(run.json, "compile_ns");
  run.create_ns = number(run.json, "create_ns");
  run.verified = run.json.at("verified").as_bool();
  run.json["process_wall_s"] = process.wall_s;
  return run;
}

std::vector<vyre::host::Metric> metrics_from_json(const boost::json::object& child) {
  std::vector<vyre::host::Metric> out;
  const auto* metrics = child.if_contains("metrics");
  if (metrics == nullptr || !metrics->is_object()) return out;
  for (const auto& [name, value] : metrics->as_object())
    out.push_back(vyre::host::Metric{std::string(name), value.to_number<std::uint64_t>()});
  return out;
}

// Bytes the driver wrote into the JIT cache directory (0: the cold run cached nothing, so the warm
// run cannot be faster).
std::uint64_t directory_bytes(const std::filesystem::path& dir) {
  std::uint64_t total = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) total += it->file_size(ec);
  }
  return total;
}

std::uint32_t new_salt(std::mt19937_64& generator) {
  std::uint32_t salt = 0;
  while (salt == 0) salt = static_cast<std::uint32_t>(generator() >> 32);
  return salt;
}


}  // namespace

std::vector<CaseResult> run_p5_first_dispatch(Context& context) {
  vyre::host::Backend backend = context.main_backend();  // fails here, clearly, without a device
  CaseResult cold = start_case("P5-cold", "first dispatch of a new 50-node program, cold JIT cache", backend, "ms", "lower");
  CaseResult warm = start_case("P5-warm", "first dispatch of that program in a new process, JIT disk cache warm", backend,
                               "ms", "lower");
  // Salts never repeat across runs: the clock and the machine's entropy pick them.
  std::mt19937_64 generator(std::random_device{}() ^ now_ns());
  std::vector<double> cold_ns, warm_ns, cold_compile, warm_compile, cold_create, warm_create;
  boost::json::array runs;
  bool verified = true;
  for (std::uint32_t r = 0; r < context.reps(5); ++r) {
    const std::uint32_t salt = new_salt(generator);
    const std::filesystem::path dir = fresh_cache_dir();
    ChildRun c = run_child(context, salt, dir);
    c.json["jit_cache_bytes_after"] = directory_bytes(dir);
    ChildRun w = run_child(context, salt, dir);
    w.json["jit_cache_bytes_after"] = directory_bytes(dir);
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
    cold_ns.push_back(c.first_total_ns);
    warm_ns.push_back(w.first_total_ns);
    cold_compile.push_back(c.compile_ns);
    warm_compile.push_back(w.compile_ns);
    cold_create.push_back(c.create_ns);
    warm_create.push_back(w.create_ns);
    verified = verified && c.verified && w.verified;
    runs.push_back(boost::json::object{{"salt", salt}, {"cold", c.json}, {"warm", w.json}});
  }
  for (CaseResult* result : {&cold, &warm}) {
    result->verified = verified;
    result->verification = checked(verified, "every child's output equals the host's evaluation of the chain");
    result->extra["statements"] = 50;
  }
  set_time_figure(cold, cold_ns, 1e-6);
  set_time_figure(warm, warm_ns, 1e-6);
  add_time_extra(cold, "compile", cold_compile, 1e-6, "ms");
  add_time_extra(warm, "compile", warm_compile, 1e-6, "ms");
  add_time_extra(cold, "backend_create", cold_create, 1e-6, "ms");
  add_time_extra(warm, "backend_create", warm_create, 1e-6, "ms");
  cold.extra["runs"] = runs;
  // Telemetry: each child's own snapshot, the last pair's.
  const auto& last = runs.back().as_object();
  cold.metrics = metrics_from_json(last.at("cold").as_object());
  warm.metrics = metrics_from_json(last.at("warm").as_object());
  return {cold, warm};
}

}  // namespace vyre::bench
