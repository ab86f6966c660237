// Transcendentals (and inverse_sqrt) as calls to the math library's PTX device functions, with the
// library's calling convention `.func (.param .fT r) name (.param .fT x)`. The function is recorded
// so that module assembly emits its definition (and dependencies) once, before the entries. A plain
// `call` (not call.uni): the call may sit in divergent code.
#include <algorithm>

#include "codegen/expressions.hpp"
#include "math/math_library.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda::codegen {

Value emit_math_call(FunctionEmitter& f, UnOp op, const Value& a) {
  const MathFunction* callee = math_function(op, a.type);
  if (callee == nullptr)
    fail(VYRE_ERR_UNSUPPORTED,
         fmt::format("the CUDA math library has no function for un.{}.{}", un_op_name(op),
                     type_name(a.type)),
         "run the program on a backend that declares this op (the registry routes by op)");
  if (std::find(f.math_calls.begin(), f.math_calls.end(), callee) == f.math_calls.end())
    f.math_calls.push_back(callee);
  std::string_view t = float_type(a.type);
  Value result = f.value(a.type);
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
