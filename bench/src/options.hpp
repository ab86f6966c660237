// The command line of vyre-bench.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace vyre::bench {

// A malformed command line: printed with the usage text, exit 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Options {
  std::vector<std::string> cases;                   // --case ID (repeatable); --all: every P/R case; --kernels: K
  std::string backend = "cuda";                     // --backend ID (R1 always uses reference_cpu)
  std::vector<std::filesystem::path> plugin_dirs;   // --plugins DIR (repeatable)
  std::optional<std::uint32_t> reps;                // --reps N: timed samples per case
  std::optional<std::uint32_t> warmup;              // --warmup N: untimed runs before the samples
  double size_scale = 1.0;                          // --size-scale S: scales the P1/P7 sizes
  double count_scale = 1.0;                         // --count-scale S: scales the P3/P4 loop counts
  std::optional<std::filesystem::path> json_out;    // --json FILE
  std::optional<std::filesystem::path> log_dir;     // --log-dir DIR: conform log, child outputs
  std::optional<std::filesystem::path> conform;     // --conform PATH (default: next to vyre-bench)
  std::vector<std::string> conform_ops;             // --conform-ops GLOB (repeatable; default all)
  std::uint32_t conform_timeout_s = 300;            // --conform-timeout S
  std::optional<std::uint32_t> sum_workgroups;      // --sum-workgroups G (P7 grid)
  std::uint64_t seed = 0x5eed'2026;                 // --seed S: the random inputs
  int verbosity = 0;                                // -v
  bool list = false;                                // --list
  bool help = false;                                // -h, --help

  // The hidden child mode of case P5 (--p5-child --salt S): one first dispatch, JSON on stdout.
  bool p5_child = false;
  std::uint32_t p5_salt = 0;
};

Options parse_options(const std::vector<std::string>& args);
std::string usage_text();

// The options a child vyre-bench needs to load the same plugins (--plugins, -v).
std::vector<std::string> plugin_arguments(const Options& options);

}  // namespace vyre::bench
