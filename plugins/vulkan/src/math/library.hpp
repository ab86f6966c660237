// The Vulkan plugin's math library: SPIR-V functions, emitted into a module once each on first
// use, for the shared algorithms of plugins/shared/math. `exact_function` gives correctly rounded
// div, sqrt and fma: the exact integer algorithms (algorithms/exact.hpp), or for f32 fma where its
// source is FmaSource::Wide the one computed in f64 (algorithms/wide_fma.hpp, the integer one for
// the operands it leaves out), or for div and sqrt where
// ModuleContext::seeded_div_sqrt the seeded ones (algorithms/seeded_div_sqrt.hpp: a device seed
// corrected with fma, the integer ones for the operands they leave out); `math_function` the
// transcendentals and inverse_sqrt
// (algorithms/functions.hpp) within SPEC §5's bounds. Each takes and returns values of `type`
// (F32 or F64) and needs 64-bit integers on the device.
#pragma once

#include "codegen/context.hpp"

namespace vyre::vulkan::math {

enum class ExactOp : std::uint8_t { Div, Sqrt, Fma };

codegen::Id exact_function(codegen::ModuleContext& ctx, ExactOp op, Type type);
// The wide f32 fma without its fallback (algorithms/wide_fma.hpp: fma_normal), for the seeded f32
// div/sqrt, whose fmas have normal operands and results by construction.
codegen::Id wide_fma_normal_function(codegen::ModuleContext& ctx);
codegen::Id math_function(codegen::ModuleContext& ctx, UnOp op, Type type);

// Whether `op` on floats is a library operation (the transcendentals and inverse_sqrt).
bool is_library_op(UnOp op);

}  // namespace vyre::vulkan::math
