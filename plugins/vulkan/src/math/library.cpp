#include "math/library.hpp"

#include <string>

#include "math/algorithms/exact.hpp"
#include "math/algorithms/functions.hpp"
#include "math/spirv_backend.hpp"

namespace vyre::vulkan::math {

namespace {

using vyre::math::P32;
using vyre::math::P64;

const char* exact_name(ExactOp op) {
  switch (op) {
    case ExactOp::Div: return "div";
    case ExactOp::Sqrt: return "sqrt";
    case ExactOp::Fma: return "fma";
  }
  return "?";
}

// A function of `arity` parameters of `type` returning `type`, its body from `body` (given the
// backend and the parameters), added to the module once under `name`.
template <class Body>
Id function_once(codegen::ModuleContext& ctx, const std::string& name, Type type, std::size_t arity, Body&& body) {
  if (auto found = ctx.helper(name)) return *found;
  spirv::Module& m = ctx.module();
  const Id t = ctx.type(type);
  spirv::Function f(m, t, std::vector<Id>(arity, t));
  ctx.add_helper(name, f.id());  // before the body: bodies call other helpers, never themselves
  m.name(f.id(), name);
  SpirvBackend b(ctx, f);
  f.ret(body(b, f));
  m.add_function(f.finish());
  return f.id();
}

template <class P, class F>
Id exact_body(SpirvBackend& b, spirv::Function& f, ExactOp op) {
  switch (op) {
    case ExactOp::Div: return vyre::math::exact::div<P>(b, F{f.param(0)}, F{f.param(1)}).id;
    case ExactOp::Sqrt: return vyre::math::exact::sqrt<P>(b, F{f.param(0)}).id;
    case ExactOp::Fma: return vyre::math::exact::fma<P>(b, F{f.param(0)}, F{f.param(1)}, F{f.param(2)}).id;
  }
  return 0;
}

}  // namespace

bool is_library_op(UnOp op) { return vyre::math::is_library_op(op); }

Id exact_function(codegen::ModuleContext& ctx, ExactOp op, Type type) {
  const std::size_t arity = op == ExactOp::Fma ? 3 : op == ExactOp::Div ? 2 : 1;
  const std::string name = std::string("vyre_exact_") + exact_name(op) + "_" + std::string(type_name(type));
  return function_once(ctx, name, type, arity, [&](SpirvBackend& b, spirv::Function& f) {
    if (type == Type::F32) return exact_body<P32, SpirvBackend::F32>(b, f, op);
    return exact_body<P64, SpirvBackend::F64>(b, f, op);
  });
}

Id math_function(codegen::ModuleContext& ctx, UnOp op, Type type) {
  const std::string name = "vyre_" + std::string(un_op_name(op)) + "_" + std::string(type_name(type));
  return function_once(ctx, name, type, 1, [&](SpirvBackend& b, spirv::Function& f) {
    if (type == Type::F32) return vyre::math::evaluate<P32>(b, op, SpirvBackend::F32{f.param(0)}).id;
    return vyre::math::evaluate<P64>(b, op, SpirvBackend::F64{f.param(0)}).id;
  });
}

}  // namespace vyre::vulkan::math
