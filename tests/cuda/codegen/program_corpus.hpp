// The programs the emitter tests lower: conform's op programs for every op the emitter declares,
// plus hand-written programs that stress control flow, phases and shared memory.
#pragma once

#include <string>
#include <vector>

#include "vyre/ir.hpp"

namespace ptx_test {

struct CorpusProgram {
  std::string label;  // "<op id> / <test name>" or "structure / <name>"
  vyre::Program program;
};

// conform's programs for each of `ops` (built for a few cases each).
std::vector<CorpusProgram> op_corpus(const std::vector<std::string>& ops);
// Hand-written programs: grid_sync phases with workgroup memory and Return, nested loops and
// branches, narrow storage types, 3-D workgroups, subgroup reductions of every kind, a workgroup
// reduction with divisions by constants.
std::vector<CorpusProgram> structure_corpus();

}  // namespace ptx_test
