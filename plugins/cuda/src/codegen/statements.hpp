// Stage 4 of the emitter: statement lowering. Let/Assign variables are registers, If and Loop are
// branches, Return jumps to the end of the current phase (SEMANTICS: Return ends the invocation's
// phase), Barrier(workgroup) is bar.sync. Top-level grid_syncs never reach here: entry assembly
// splits the body into phases at them.
#pragma once

#include <vector>

#include "codegen/function_emitter.hpp"
#include "vyre/ir.hpp"

namespace vyre::cuda::codegen {

void emit_statement(FunctionEmitter& f, const Node& node);
// The statements of a nested body, in a scope of their own.
void emit_block(FunctionEmitter& f, const std::vector<Node>& body);

}  // namespace vyre::cuda::codegen
