// Shared helpers of the AOT tests: scratch directories, child processes, bundles emitted in process,
// and deterministic inputs for the example programs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "vyre/ir.hpp"
#include "vyre/plugin_kit.hpp"

namespace aot_test {

namespace fs = std::filesystem;

// A fresh, empty directory VYRE_AOT_WORK_DIR/<name>.
fs::path fresh_dir(const std::string& name);

struct Process {
  int exit_code = -1;
  std::string out;
  std::string err;
  bool out_has(const std::string& text) const { return out.find(text) != std::string::npos; }
  bool err_has(const std::string& text) const { return err.find(text) != std::string::npos; }
};

// Run `command` through the shell with `env` prepended ("A=1 B=2"); stdout and stderr captured.
Process run(const std::string& command, const std::string& env = "");
// cmake arguments choosing a build tool found here: " -G Ninja -DCMAKE_MAKE_PROGRAM=/usr/bin/ninja",
// else Unix Makefiles with make; empty when neither exists.
std::string cmake_generator_args();

// Quote one shell word.
std::string quote(const std::string& word);

std::string read_text(const fs::path& path);
std::vector<std::uint8_t> read_bytes(const fs::path& path);
void write_bytes(const fs::path& path, const std::vector<std::uint8_t>& bytes);

// The example programs (examples/*.json), sorted.
std::vector<fs::path> example_programs();

// The bundle files for `program` from the CUDA emitter, in process.
std::vector<vyre::AotFile> emit_in_process(const vyre::Program& program, const vyre::DispatchConfig& config = {},
                                                std::optional<std::string> target = std::nullopt,
                                                const std::vector<std::uint8_t>& weights = {});
void write_files(const std::vector<vyre::AotFile>& files, const fs::path& dir);
const vyre::AotFile* find_file(const std::vector<vyre::AotFile>& files, const std::string& name);

// Deterministic bytes for every host input of `program` (declaration order), sized by its counts:
// integers are random words, floats random finite normal values.
std::vector<std::pair<std::string, std::vector<std::uint8_t>>> example_inputs(const vyre::Program& program,
                                                                              std::uint32_t seed);

// A program with a u32 `metrics` buffer of 8 words for the TTT loop: each launch makes invocation 0
// add 1 to word 0 (step), store 1/step as f32 bits in word 1 (loss), add 16 to word 2 (tokens).
vyre::Program metrics_program();

}  // namespace aot_test
