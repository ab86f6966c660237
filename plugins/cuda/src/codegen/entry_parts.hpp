// Stage 5 pieces of an entry that are not statements: the prologue that loads the kernel
// parameters, the tail guard, zeroing the shared block, and the grid barrier of cooperative entries.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/function_emitter.hpp"

namespace vyre::cuda::codegen {

// The name of the function-scope .shared block holding the workgroup buffers.
inline constexpr std::string_view kSharedBlockName = "vyre_shared";
// The comment line that precedes each math-library definition in a module ("// vyre math: NAME"),
// so that tools (and the ptxas test) can split a module into definitions and entries.
inline constexpr std::string_view kMathMarker = "// vyre math: ";
// Bytes of grid-barrier state a cooperative entry needs: u32 arrival count, u32 generation.
inline constexpr std::uint32_t kGridBarrierBytes = 8;

// The PTX name of a kernel parameter (p_ptr_<buffer>, p_len_<buffer>, p_n, p_tail_guard,
// p_grid_barrier).
std::string param_name(const KernelParam& param);

// The .entry parameter list for `params` (one ".param" line each).
std::string param_declarations(const std::vector<KernelParam>& params);

// The `.visible .entry NAME(params)` header up to and including the body's opening brace, with
// `.reqntid` when the layout has a launch workgroup size.
std::string entry_header(std::string_view name, const std::vector<KernelParam>& params,
                         const ProgramLayout& layout);

// Load every kernel parameter of `params` into registers (f.params) and take the shared block's
// address.
void emit_prologue(FunctionEmitter& f, const std::vector<KernelParam>& params);

// A register holding WorkgroupId.x: %ctaid.x, plus the launch's workgroup_base in sharded entries.
std::string workgroup_id_x(FunctionEmitter& f);

// When tail_guard != 0 (always, in a module with covering buffers) and InvocationId.x >= N, jump
// to `exit_label`.
void emit_tail_guard(FunctionEmitter& f, const std::string& exit_label);

// Every invocation of the workgroup zeroes its share of the shared block, then bar.sync.
void emit_zero_shared(FunctionEmitter& f);

// All invocations of all workgroups arrive before any continues; memory written before is visible
// after (release/acquire at gpu scope). Uses the launch's barrier state at f.params.grid_barrier.
void emit_grid_barrier(FunctionEmitter& f);

}  // namespace vyre::cuda::codegen
