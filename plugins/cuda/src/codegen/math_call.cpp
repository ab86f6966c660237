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
// f32 sin and cos, inline, go through their shared parts (math_library.hpp SinCosRegisters): the
// first of sin x / cos x computes the reduction and both kernels into registers the function keeps
// (FunctionEmitter::sin_cos_parts), and each takes its result from them with a few selects, so
// sin x and cos x of one x in straight-line code reduce x once, as nvcc's CSE does for sinf/cosf.
#include <algorithm>
#include <optional>

#include "codegen/expressions.hpp"
#include "math/math_library.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda::codegen {
namespace {

void need(FunctionEmitter& f, const MathFunction* entry) {
  if (entry != nullptr && std::find(f.math_calls.begin(), f.math_calls.end(), entry) == f.math_calls.end())
    f.math_calls.push_back(entry);
}

void need_all(FunctionEmitter& f, const std::vector<std::string>& dependencies) {
  for (const std::string& dep : dependencies) need(f, math_function_by_name(dep));
}

bool fits_inline(const FunctionEmitter& f, int instructions) {
  return f.layout().inline_math &&
         f.math_inline_instructions + static_cast<std::uint32_t>(instructions) <= kMathInlineBudget;
}

void paste(FunctionEmitter& f, const InlineBlock& block, std::string_view what) {
  f.math_inline_instructions += static_cast<std::uint32_t>(block.instructions);
  ++f.math_inline_sites;
  need_all(f, block.dependencies);
  f.comment(fmt::format("vyre math inline: {}", what));
  f.raw(block.ptx);
}

std::string prefix(const FunctionEmitter& f, std::uint32_t ahead = 0) {
  return fmt::format("m{}_", f.math_inline_sites + ahead);
}

// f32 sin or cos inline through the parts of `a` (computed here unless kept from an earlier use);
// nullopt where the copies would pass the inline budget (the caller then calls the function).
std::optional<Value> emit_sin_cos(FunctionEmitter& f, UnOp op, const Value& a) {
  const SinCosRegisters* parts = f.sin_cos_parts(a.reg);
  std::optional<InlineBlock> computed;
  SinCosRegisters fresh;
  if (parts == nullptr) {
    fresh = {f.reg(RegClass::F32), f.reg(RegClass::F32), f.reg(RegClass::B32)};
    computed = sin_cos_parts_inline(a.reg, fresh, prefix(f));
    parts = &fresh;
  }
  Value result = f.value(Type::F32);
  InlineBlock select = sin_cos_select_inline(op, *parts, a.reg, result.reg, prefix(f, computed ? 1 : 0));
  if (!fits_inline(f, select.instructions + (computed ? computed->instructions : 0))) return std::nullopt;
  if (computed) {
    paste(f, *computed, "vyre_sin_cos_parts_f32");
    f.keep_sin_cos_parts(a.reg, fresh);
  }
  paste(f, select, op == UnOp::Sin ? "vyre_sin_select_f32" : "vyre_cos_select_f32");
  return result;
}

}  // namespace

Value emit_math_call(FunctionEmitter& f, UnOp op, const Value& a) {
  const MathFunction* callee = math_function(op, a.type);
  if (callee == nullptr)
    fail(VYRE_ERR_UNSUPPORTED,
         fmt::format("the CUDA math library has no function for un.{}.{}", un_op_name(op),
                     type_name(a.type)),
         "run the program on a backend that declares this op (the registry routes by op)");
  if (a.type == Type::F32 && (op == UnOp::Sin || op == UnOp::Cos)) {
    if (std::optional<Value> y = emit_sin_cos(f, op, a)) return *y;
  }
  Value result = f.value(a.type);
  if (fits_inline(f, callee->instructions)) {
    paste(f, {math_inline_ptx(*callee, a.reg, result.reg, prefix(f)), callee->dependencies,
              callee->instructions},
          callee->name);
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
