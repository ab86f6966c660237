// The vyre-aot command line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "command_line.hpp"
#include "vyre/ir.hpp"

namespace vyre::aot_tool {

// The command-line pieces every vyre tool shares (tools/common).
using tool::kExitFailure;
using tool::kExitOk;
using tool::kExitUsage;
using tool::UsageError;

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
  tool::RegistryFlags registry;                                       // --plugins DIR, --no-default-plugins, -v
};

struct CommandLine {
  bool help = false;
  CompileOptions compile;
};

// Parse everything after the program name. Throws UsageError.
CommandLine parse_command_line(const std::vector<std::string>& args);

extern const char* const kUsage;

}  // namespace vyre::aot_tool
