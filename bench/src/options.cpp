#include "options.hpp"

#include <fmt/core.h>

#include <charconv>

namespace vyre::bench {
namespace {

std::uint64_t parse_unsigned(const std::string& flag, const std::string& text) {
  std::uint64_t value = 0;
  const int base = text.starts_with("0x") ? 16 : 10;
  const char* begin = text.data() + (base == 16 ? 2 : 0);
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(begin, end, value, base);
  if (ec != std::errc() || ptr != end || begin == end)
    throw UsageError(fmt::format("{} needs a non-negative integer, got '{}'", flag, text));
  return value;
}

std::uint32_t parse_u32(const std::string& flag, const std::string& text) {
  const std::uint64_t value = parse_unsigned(flag, text);
  if (value > 0xFFFF'FFFFu) throw UsageError(fmt::format("{} is too large: {}", flag, text));
  return static_cast<std::uint32_t>(value);
}

double parse_scale(const std::string& flag, const std::string& text) {
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || !(value > 0) || value > 1.0)
    throw UsageError(fmt::format("{} needs a number in (0, 1], got '{}'", flag, text));
  return value;
}

}  // namespace

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError(fmt::format("{} needs a value", a));
      return args[++i];
    };
    if (a == "--case") o.cases.push_back(value());
    else if (a == "--all") o.cases.push_back("all");
    else if (a == "--kernels") o.cases.push_back("kernels");
    else if (a == "--backend") o.backend = value();
    else if (a == "--plugins") o.plugin_dirs.emplace_back(value());
    else if (a == "--reps") o.reps = parse_u32(a, value());
    else if (a == "--warmup") o.warmup = parse_u32(a, value());
    else if (a == "--size-scale") o.size_scale = parse_scale(a, value());
    else if (a == "--count-scale") o.count_scale = parse_scale(a, value());
    else if (a == "--json") o.json_out = value();
    else if (a == "--log-dir") o.log_dir = value();
    else if (a == "--conform") o.conform = value();
    else if (a == "--conform-ops") o.conform_ops.push_back(value());
    else if (a == "--conform-timeout") o.conform_timeout_s = parse_u32(a, value());
    else if (a == "--sum-workgroups") o.sum_workgroups = parse_u32(a, value());
    else if (a == "--seed") o.seed = parse_unsigned(a, value());
    else if (a == "-v" || a == "--verbose") ++o.verbosity;
    else if (a == "--list") o.list = true;
    else if (a == "-h" || a == "--help") o.help = true;
    else if (a == "--p5-child") o.p5_child = true;
    else if (a == "--salt") o.p5_salt = parse_u32(a, value());
    else throw UsageError(fmt::format("unknown argument '{}'", a));
  }
  if (o.reps && *o.reps == 0) throw UsageError("--reps needs at least 1");
  if (o.sum_workgroups && *o.sum_workgroups == 0) throw UsageError("--sum-workgroups needs at least 1");
  if (o.cases.empty() && !o.help && !o.list && !o.p5_child)
    throw UsageError("name the cases to run: --case ID (repeatable), --all or --kernels");
  return o;
}

std::vector<std::string> plugin_arguments(const Options& options) {
  std::vector<std::string> out;
  for (const auto& dir : options.plugin_dirs) {
    out.push_back("--plugins");
    out.push_back(std::filesystem::absolute(dir).string());
  }
  for (int v = 0; v < options.verbosity; ++v) out.push_back("-v");
  return out;
}

std::string usage_text() {
  return R"(usage: vyre-bench (--case ID... | --all | --kernels | --list) [options]

Runs the vyre side of the performance cases (bench/README.md) through the registry and the host
wrapper: warm-up, many timed samples, median/p10/p90, a correctness check per case, and the
backend's telemetry. Ratios against PyTorch/CuPy come from scripts/bench.sh.

options:
  --case ID             P1 P2 P3 P4 P5 P6 P7 P9 C1 M1 M2 R1 R2 K1..K13, or one K13 function
                        (K13-exp; --list names them) (repeatable); --all runs every P and R case
  --kernels             run K1..K13: each vyre kernel against its nvcc twin (libvyre_kernel_twins.so:
                        VYRE_KERNEL_TWINS, else the build tree's; -DVYRE_BENCH_NVCC_TWINS=ON builds it)
  --backend ID          backend of every case but R1/R2 (default cuda); they use reference_cpu
  --plugins DIR         also load plugins from DIR (repeatable)
  --reps N              timed samples per case (default per case; P5: cold/warm pairs)
  --warmup N            untimed runs before the samples (default per case)
  --size-scale S        scale the P1/P7 element counts and R2's lets by S in (0, 1]; below 1 the K
                        cases run their small (CPU test) sizes
  --count-scale S       scale the P3/P4 dispatch counts by S in (0, 1]
  --json FILE           write every case's statistics and telemetry as JSON
  --log-dir DIR         keep P6's conform log and certificate there
  --conform PATH        the vyre-conform binary (default: next to vyre-bench)
  --conform-ops GLOB    restrict P6 to these ops (repeatable; default: the full default run)
  --conform-timeout S   stop P6 after S seconds (default 300; the case then misses)
  --sum-workgroups G    P7's grid (default: 8 per multiprocessor)
  --seed S              seed of the random inputs
  -v                    log what the registry does
  --list                list the cases

exit status: 0 every case ran and verified, 1 a case failed, 2 a usage error
)";
}

}  // namespace vyre::bench
