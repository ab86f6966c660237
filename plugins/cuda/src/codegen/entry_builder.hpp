// Stage 5 of the emitter: entry assembly. An entry runs a sequence of phases of the program; a
// cooperative entry runs several with a grid barrier between them (the `whole` entry of a
// grid_sync program), a phase entry runs one (split launches).
//
// Elementwise programs also get a vectorised entry, built by elementwise_entry.cpp
// (elementwise.hpp) from the same statement lowering.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "codegen/program_layout.hpp"
#include "lowering.hpp"

namespace vyre::cuda {
struct MathFunction;
}

namespace vyre::cuda::codegen {

struct EntryPlan {
  std::string name;
  std::vector<std::size_t> phases;  // indices into ProgramLayout::phases, run in this order
  bool cooperative = false;         // has the grid-barrier parameter and barriers between phases
  bool sharded = false;             // takes the shard parameters (LowerOptions::sharded)
};

struct EmittedEntry {
  KernelEntry entry;
  std::string ptx;                                // the complete .entry definition
  std::vector<const MathFunction*> math_calls;    // library functions it calls
};

EmittedEntry emit_entry(const ProgramLayout& layout, const Target& target, const EntryPlan& plan);

}  // namespace vyre::cuda::codegen
