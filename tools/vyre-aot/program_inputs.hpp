// The program a bundle is built from, with its sizes fixed: --in files and --count values give the
// runtime-sized (count 0) buffers their counts, and the input and weight bytes are read and checked
// against the buffers they fill.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "options.hpp"
#include "vyre/ir.hpp"

namespace vyre::aot_tool {

struct InputData {
  std::string buffer;
  std::vector<std::uint8_t> bytes;
};

struct PreparedProgram {
  Program program;                 // every runtime-sized buffer that was given a size is fixed
  std::string source_fingerprint;  // of the program as loaded
  bool specialised = false;        // some count was fixed here
  std::vector<InputData> inputs;   // in command-line order
  std::vector<std::uint8_t> weights;
};

// Load options.program and apply --in, --count and --weights. Throws vyre::Error naming the
// buffer and the option at fault.
PreparedProgram prepare_program(const CompileOptions& options);

}  // namespace vyre::aot_tool
