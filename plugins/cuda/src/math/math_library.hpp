// The transcendental math library of the CUDA plugin: PTX device functions for exp, exp2, log,
// log2, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh and inverse_sqrt, for f32 and f64.
//
// Each function is a complete PTX `.func` with the calling convention
//     .func (.param .f32 r) vyre_exp_f32 (.param .f32 x)        (.f64 for the f64 functions)
// so the emitter may call it as
//     { .param .f32 a; .param .f32 rv;
//       st.param.f32 [a], %f1;
//       call (rv), vyre_exp_f32, (a);
//       ld.param.f32 %f2, [rv]; }
// or paste a copy of its body at the use (math_inline_ptx, the emitter's usual choice).
// A function may use module-scope data (e.g. the bits of 2/pi for the trigonometric range
// reduction, and the f64 constants read from the constant bank); such data is itself a MathFunction
// whose `ptx` is a `.global` or `.const` definition. The module
// must hold every entry of math_closure() of the functions it calls, in that order, before the
// first caller. Functions need PTX ISA 7.8+ (sm_90), never use .ftz or .approx instructions, keep
// subnormals, and are deterministic: the CPU evaluates the very same instruction sequences (see
// cpu_backend.hpp) to certify the accuracy recorded in ACCURACY.md. NaN results may carry any
// payload (the emitter canonicalizes on store).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "vyre/ir.hpp"
#include "vyre/types.hpp"

namespace vyre::cuda {

struct MathFunction {
  std::string name;                       // "vyre_exp_f32"; data: "vyre_math_two_over_pi"
  std::string ptx;                        // the complete module-scope definition
  std::vector<std::string> dependencies;  // names of other MathFunctions it calls or reads
  int instructions = 0;                   // PTX instructions of the body (0 for data)
};

// The same function as a block to paste at a use instead of a `call`: `{ .reg ...; body;
// mov.fT dest, result; }`, reading the caller's register `arg` (of the function's type) and
// writing `dest`. Every register and label of the block starts with `prefix` (after `%` or
// `$L__`), which must be unique among the inline copies of the calling function and must not begin
// the caller's own register names (the emitter's are %p %h %r %rd %f %fd followed by digits).
// The module still needs the function's `dependencies` (data), not the function itself.
std::string math_inline_ptx(const MathFunction& f, const std::string& arg, const std::string& dest,
                            const std::string& prefix);

// f32 sin and cos of one value share their range reduction and both kernels (trig.hpp,
// SinCosF32): an emitter that meets sin x and cos x computes the parts once into registers of its
// own and selects each result from them, with the same bits as the two functions.
struct SinCosRegisters {
  std::string s, c;  // f32: sin r, cos r
  std::string n;     // b32: the quadrant count
};
struct InlineBlock {
  std::string ptx;                        // `{ .reg ...; body; mov dest, result; ... }`
  std::vector<std::string> dependencies;  // module-scope data it reads (math_function_by_name)
  int instructions = 0;
};
// The parts of f32 `x` into `dest`.
InlineBlock sin_cos_parts_inline(const std::string& x, const SinCosRegisters& dest,
                                 const std::string& prefix);
// sin x (op Sin) or cos x (op Cos) into `dest` from the parts of `x`.
InlineBlock sin_cos_select_inline(vyre::UnOp op, const SinCosRegisters& parts, const std::string& x,
                                  const std::string& dest, const std::string& prefix);

// The library function computing `op` on `type` (F32 or F64), or nullptr if `op` on `type` is not
// a library op (e.g. sqrt, abs, or an integer type).
const MathFunction* math_function(vyre::UnOp op, vyre::Type type);

// A MathFunction (function or data) by its name, or nullptr.
const MathFunction* math_function_by_name(std::string_view name);

// Every MathFunction the given ones need, each once, dependencies before their users, the given
// ones included: emit their `ptx` in this order at module scope.
std::vector<const MathFunction*> math_closure(const std::vector<const MathFunction*>& roots);

// All library entries (the 28 functions and their data), in a fixed order.
const std::vector<MathFunction>& math_library();

}  // namespace vyre::cuda
