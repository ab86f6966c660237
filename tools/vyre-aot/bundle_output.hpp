// The last steps of vyre-aot: add the bundled input files to what the plugin emitted, check the
// result with the launcher's own manifest checks, and write the bundle directory.
#pragma once

#include <filesystem>
#include <vector>

#include "program_inputs.hpp"
#include "vyre/backend.hpp"

namespace vyre::aot_tool {

// `files` (from aot_emit) plus inputs/NAME.bin for every --in, recorded in the manifest's
// "inputs" with their SHA-256; "source_program_fingerprint" when sizes were fixed here. Throws
// vyre::Error when the plugin's output has no manifest or the result fails the launcher's checks.
std::vector<vyre::AotFile> complete_bundle(std::vector<vyre::AotFile> files, const PreparedProgram& prepared);

// Check a finished bundle as the launcher will: manifest.json parses and validates, and every file
// it names is present with the recorded size and SHA-256. Throws vyre::Error.
void check_bundle(const std::vector<vyre::AotFile>& files);

// Write the files under `dir` (manifest.json last). `dir` must be absent or empty unless `force`.
void write_bundle(const std::vector<vyre::AotFile>& files, const std::filesystem::path& dir, bool force);

}  // namespace vyre::aot_tool
