// Stage 1 of the emitter: analysis. Everything the later stages need to know about a program
// before emitting a line: which buffers are kernel parameters and which live in shared memory (and
// where), whether the code needs the tail guard, how the body splits into grid_sync phases, and the
// kernel parameter layout of lowering.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "lowering.hpp"
#include "vyre/buffer_index.hpp"
#include "vyre/ir.hpp"

namespace vyre::cuda::optimize {
class RangeAnalysis;
}

namespace vyre::cuda::codegen {

// Static shared memory a kernel may declare (CUDA's limit without dynamic shared memory).
inline constexpr std::uint32_t kMaxStaticSharedBytes = 48 * 1024;

struct BufferSlot {
  bool workgroup = false;         // lives in the shared block (else a kernel parameter)
  std::uint32_t shared_offset = 0;  // workgroup buffers: byte offset in the shared block
  std::uint32_t count = 0;          // workgroup buffers: the declared element count
};

struct ProgramLayout {
  const Program* program = nullptr;
  BufferIndex buffer_names;         // program->buffers by name
  std::vector<BufferSlot> buffers;  // by index into program->buffers
  std::uint32_t shared_bytes = 0;   // size of the shared block (a multiple of 16; 0 if none)
  // The program runs in full-workgroup mode whatever the dispatch (barrier, workgroup buffer or
  // subgroup op): its code never applies the tail guard, so every invocation reaches barriers.
  bool full_workgroup = false;
  bool grid_sync = false;
  // The top-level statements between grid_syncs (one phase when the program has none).
  std::vector<std::vector<const Node*>> phases;
  // Set by lower(): the optimizer's value ranges (accesses proved in bounds lose their predicate),
  // and the workgroup size every launch uses (LowerOptions::workgroup; entries declare .reqntid).
  const optimize::RangeAnalysis* ranges = nullptr;
  std::optional<std::array<std::uint32_t, 3>> launch_workgroup;
  // Set by lower() (with the optimizer and a known launch workgroup): by phase, whether the phase
  // can never observe the zero start of its workgroup memory (optimize/workgroup_init.hpp), so the
  // shared block is not zeroed (nor the barrier after zeroing emitted) at its start.
  std::vector<bool> skip_zero_shared;
  // Set by lower() (with the optimizer): the covering buffers the range analysis relied on
  // (LowerOptions::covering, ascending); their ElementCount parameters are marked covers_n.
  std::vector<std::uint32_t> covering;
  // Set by lower() (with the optimizer): math-library functions are pasted at their uses, within
  // an instruction budget per function, instead of called (codegen/math_call.cpp).
  bool inline_math = false;
};

// Analyse `program`. Throws vyre::Error (VYRE_ERR_LIMIT) when its workgroup buffers do not fit in
// static shared memory.
ProgramLayout analyze_program(const Program& program);

// The kernel parameters of lowering.hpp's layout for `program` (sharded: with the shard
// parameters; cooperative: with the grid-barrier state pointer; the ElementCount of each buffer in
// `covering` marked covers_n).
std::vector<KernelParam> kernel_params(const Program& program, bool sharded, bool cooperative,
                                       const std::vector<std::uint32_t>& covering = {});

}  // namespace vyre::cuda::codegen
