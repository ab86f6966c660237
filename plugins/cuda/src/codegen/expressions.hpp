// Stage 3 of the emitter: expression lowering. emit_expr evaluates an expression's operands left
// to right (all of them: both Select arms, both logical operands) and returns the register holding
// its value; the operator families are lowered in one file each.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "codegen/function_emitter.hpp"
#include "vyre/ir.hpp"

namespace vyre::cuda::codegen {

Value emit_expr(FunctionEmitter& f, const Expr& expr);

// Builtins: InvocationId, LocalId, WorkgroupId, NumWorkgroups, SubgroupLane, SubgroupSize, BufLen.
Value emit_builtin(FunctionEmitter& f, const Expr& expr);

// Binary operators on evaluated operands (`b` is u32 for shifts and rotates).
Value emit_binary(FunctionEmitter& f, BinOp op, const Value& a, const Value& b);
Value emit_int_binary(FunctionEmitter& f, BinOp op, const Value& a, const Value& b);
// Div or Mod of integers whose divisor the optimizer proved non-zero (and, signed, not the -1 of
// MIN / -1): PTX's div/rem without the zero-divisor selects; a literal divisor is written as an
// immediate, an unsigned power of two as a shift or mask.
Value emit_plain_division(FunctionEmitter& f, BinOp op, const Value& a, const Value& b,
                          std::optional<std::uint64_t> literal);
Value emit_float_binary(FunctionEmitter& f, BinOp op, const Value& a, const Value& b);
Value emit_bool_binary(FunctionEmitter& f, BinOp op, const Value& a, const Value& b);
// The setp condition of a comparison (Eq, Ne, Lt, Le, Gt, Ge): "eq", "ne", "lt", "le", "gt", "ge".
// The float comparisons use "neu" for Ne instead (float_binary.cpp).
std::string_view comparison_condition(BinOp op);

// Unary operators.
Value emit_unary(FunctionEmitter& f, UnOp op, const Value& a);
Value emit_int_unary(FunctionEmitter& f, UnOp op, const Value& a);
Value emit_float_unary(FunctionEmitter& f, UnOp op, const Value& a);

// Conversions: Cast (value-converting) and Bitcast (same width, NaN canonicalised toward ints).
Value emit_cast(FunctionEmitter& f, Type to, const Value& a);
Value emit_bitcast(FunctionEmitter& f, Type to, const Value& a);

// Select (both arms already evaluated) and Fma.
Value emit_select_value(FunctionEmitter& f, const Value& cond, const Value& a, const Value& b);
Value emit_fma(FunctionEmitter& f, const Value& a, const Value& b, const Value& c);

// A transcendental (or inverse_sqrt) from the math library: an inline copy of the function's body,
// or a call of its device function once the function's inline copies hold kMathInlineBudget PTX
// instructions (math_call.cpp). 4096 holds K6's 24 copies in its 4-lane entry (sin, cos, exp, tanh,
// log, atan: ~3,750; sin and cos ~285 each with their inline Payne-Hanek path) and K13's 8 of any
// function; ptxas (sm_90, -O3) then takes ~1 s for K6 on a loaded 2-core machine against 0.4 s
// with calls. Past the budget the JIT time of a module grows with its math uses no more.
inline constexpr std::uint32_t kMathInlineBudget = 4096;
Value emit_math_call(FunctionEmitter& f, UnOp op, const Value& a);

// Subgroup operations (all 32 lanes active: full member mask).
Value emit_ballot(FunctionEmitter& f, const Value& cond);
Value emit_shuffle(FunctionEmitter& f, const Value& value, const Value& lane);
Value emit_subgroup_reduce(FunctionEmitter& f, ReduceOp op, const Value& value);

// The canonical quiet NaN's bits when `value` (f32/f64) is NaN, else its bits: a .b32/.b64 value
// of the same width (u32 or u64 typed).
Value emit_canonical_bits(FunctionEmitter& f, const Value& value);

}  // namespace vyre::cuda::codegen
