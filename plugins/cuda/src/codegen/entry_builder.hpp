// Stage 5 of the emitter: entry assembly. An entry runs a sequence of phases of the program; a
// cooperative entry runs several with a grid barrier between them (the `whole` entry of a
// grid_sync program), a phase entry runs one (split launches).
//
// Performance work slots in here without touching operator lowering: an elementwise entry shape
// (several elements per invocation, 16-byte vector accesses through memory_access.hpp's
// ElementRef) would be another EntryPlan kind that loops the phase over its elements.
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
};

struct EmittedEntry {
  KernelEntry entry;
  std::string ptx;                                // the complete .entry definition
  std::vector<const MathFunction*> math_calls;    // library functions it calls
};

EmittedEntry emit_entry(const ProgramLayout& layout, const Target& target, const EntryPlan& plan);

}  // namespace vyre::cuda::codegen
