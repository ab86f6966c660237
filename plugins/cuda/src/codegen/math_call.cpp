// Transcendentals (and inverse_sqrt) from the math library, at each use either
//  - pasted inline (the usual case, with the optimizer): a scope block holding a copy of the
//    function's body with its own registers (math_inline_ptx), so ptxas schedules the math with the
//    surrounding code and overlaps independent evaluations; ptxas does not inline `.func`s (a call
//    of a vyre `.func` stays a CALL in SASS at -O3), and the call ABI costs parameter moves and
//    serializes the calls; or
//  - a call of the function's `.func` with the library's calling convention
//    `.func (.param .fT r) name (.param .fT x)` (a plain `call`, not call.uni: the call may sit in
//    divergent code), once a function's inline copies reach kMathInlineBudget instructions, or
//    without the optimizer.
// Either way the module-scope entries needed (the function, or the data its copy reads) are
// recorded so that module assembly emits their definitions once, before the entries.
#include <algorithm>

#include "codegen/expressions.hpp"
#include "math/math_library.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda::codegen {
namespace {

void need(FunctionEmitter& f, const MathFunction* entry) {
  if (entry != nullptr && std::find(f.math_calls.begin(), f.math_calls.end(), entry) == f.math_calls.end())
    f.math_calls.push_back(entry);
}

}  // namespace

Value emit_math_call(FunctionEmitter& f, UnOp op, const Value& a) {
  const MathFunction* callee = math_function(op, a.type);
  if (callee == nullptr)
    fail(VYRE_ERR_UNSUPPORTED,
         fmt::format("the CUDA math library has no function for un.{}.{}", un_op_name(op),
                     type_name(a.type)),
         "run the program on a backend that declares this op (the registry routes by op)");
  Value result = f.value(a.type);
  const auto cost = static_cast<std::uint32_t>(callee->instructions);
  if (f.layout().inline_math && f.math_inline_instructions + cost <= kMathInlineBudget) {
    f.math_inline_instructions += cost;
    const std::string prefix = fmt::format("m{}_", f.math_inline_sites++);
    for (const std::string& dep : callee->dependencies) need(f, math_function_by_name(dep));
    f.comment(fmt::format("vyre math inline: {}", callee->name));
    f.raw(math_inline_ptx(*callee, a.reg, result.reg, prefix));
    return result;
  }
  need(f, callee);
  std::string_view t = float_type(a.type);
  f.ins("{{");
  f.ins("  .param .{} vyre_math_arg;", t);
  f.ins("  .param .{} vyre_math_ret;", t);
  f.ins("  st.param.{} [vyre_math_arg], {};", t, a.reg);
  f.ins("  call (vyre_math_ret), {}, (vyre_math_arg);", callee->name);
  f.ins("  ld.param.{} {}, [vyre_math_ret];", t, result.reg);
  f.ins("}}");
  return result;
}

}  // namespace vyre::cuda::codegen
