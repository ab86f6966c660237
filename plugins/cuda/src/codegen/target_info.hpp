// Feature questions about a target that change which instructions the emitter picks.
#pragma once

#include "lowering.hpp"

namespace vyre::cuda::codegen {

// redux.sync (32-bit integer warp reductions) exists from sm_80 on.
bool has_redux_sync(const Target& target);
// cvt.rn.bf16.f32 exists from sm_80 on; older targets round in integer arithmetic.
bool has_bf16_convert(const Target& target);

}  // namespace vyre::cuda::codegen
