#include "math/library.hpp"

#include <string>

#include "math/algorithms/exact.hpp"
#include "math/algorithms/functions.hpp"
#include "math/algorithms/seeded_div_sqrt.hpp"
#include "math/algorithms/wide_fma.hpp"
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

// The exact integer algorithms (exact.hpp) as functions.
Id integer_function(codegen::ModuleContext& ctx, ExactOp op, Type type) {
  const std::size_t arity = op == ExactOp::Fma ? 3 : op == ExactOp::Div ? 2 : 1;
  const std::string name = std::string("vyre_exact_") + exact_name(op) + "_" + std::string(type_name(type));
  return function_once(ctx, name, type, arity, [&](SpirvBackend& b, spirv::Function& f) {
    if (type == Type::F32) return exact_body<P32, SpirvBackend::F32>(b, f, op);
    return exact_body<P64, SpirvBackend::F64>(b, f, op);
  });
}

// The seeded div and sqrt (seeded_div_sqrt.hpp) as functions, calling the integer ones for the
// operands they leave out.
template <class P, class F>
Id seeded_body(codegen::ModuleContext& ctx, SpirvBackend& b, spirv::Function& f, ExactOp op, Type type) {
  const Id t = ctx.type(type);
  if (op == ExactOp::Div)
    return vyre::math::seeded::div<P>(b, F{f.param(0)}, F{f.param(1)}, [&](const F& x, const F& y) {
             return F{f.call(t, integer_function(ctx, ExactOp::Div, type), {x.id, y.id})};
           }).id;
  return vyre::math::seeded::sqrt<P>(b, F{f.param(0)}, [&](const F& x) {
           return F{f.call(t, integer_function(ctx, ExactOp::Sqrt, type), {x.id})};
         }).id;
}

}  // namespace

bool is_library_op(UnOp op) { return vyre::math::is_library_op(op); }

Id exact_function(codegen::ModuleContext& ctx, ExactOp op, Type type) {
  if (op == ExactOp::Fma && type == Type::F32 && ctx.features().fma_source32 == DeviceFeatures::FmaSource::Wide) {
    // f32 fma computed in f64, the integer algorithm for the operands it leaves out.
    return function_once(ctx, "vyre_wide_fma_f32", type, 3, [&](SpirvBackend& b, spirv::Function& f) {
      using F = SpirvBackend::F32;
      const Id t = ctx.type(type);
      return vyre::math::wide::fma(b, F{f.param(0)}, F{f.param(1)}, F{f.param(2)}, [&](const F& x, const F& y, const F& z) {
               return F{f.call(t, integer_function(ctx, ExactOp::Fma, type), {x.id, y.id, z.id})};
             }).id;
    });
  }
  if (op == ExactOp::Fma || !ctx.seeded_div_sqrt(type)) return integer_function(ctx, op, type);
  const std::string name = std::string("vyre_seeded_") + exact_name(op) + "_" + std::string(type_name(type));
  return function_once(ctx, name, type, op == ExactOp::Div ? 2 : 1, [&](SpirvBackend& b, spirv::Function& f) {
    b.use_normal_fma();  // seeded_div_sqrt.hpp's fmas see operands scaled into [1, 4)
    if (type == Type::F32) return seeded_body<P32, SpirvBackend::F32>(ctx, b, f, op, type);
    return seeded_body<P64, SpirvBackend::F64>(ctx, b, f, op, type);
  });
}

Id wide_fma_normal_function(codegen::ModuleContext& ctx) {
  return function_once(ctx, "vyre_wide_fma_normal_f32", Type::F32, 3, [&](SpirvBackend& b, spirv::Function& f) {
    using F = SpirvBackend::F32;
    return vyre::math::wide::fma_normal(b, F{f.param(0)}, F{f.param(1)}, F{f.param(2)}).id;
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
