// The vyre-aot command line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "vyre/ir.hpp"

namespace vyre::aot_tool {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// A malformed command line (exit 2).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CompileOptions {
  std::filesystem::path program;
  std::string backend = "cuda";                                       // --target ID
  std::optional<std::uint32_t> sm;                                    // --sm 90
  DispatchConfig config;                                              // --grid, --elements, --workgroup, --iterations
  std::optional<std::filesystem::path> weights;                       // --weights FILE
  std::vector<std::pair<std::string, std::filesystem::path>> inputs;  // --in NAME=FILE
  std::vector<std::pair<std::string, std::uint64_t>> counts;          // --count NAME=N
  std::filesystem::path out;                                          // --out DIR
  bool force = false;                                                 // --force: write into a non-empty DIR
  std::vector<std::filesystem::path> plugin_dirs;                     // --plugins DIR
  bool default_plugins = true;                                        // --no-default-plugins
  int verbosity = 0;                                                  // -v
};

struct CommandLine {
  bool help = false;
  CompileOptions compile;
};

// Parse everything after the program name. Throws UsageError.
CommandLine parse_command_line(const std::vector<std::string>& args);

extern const char* const kUsage;

}  // namespace vyre::aot_tool
