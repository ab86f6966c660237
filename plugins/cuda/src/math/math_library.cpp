#include "math/math_library.hpp"

#include <functional>
#include <map>
#include <set>
#include <type_traits>

#include "math/algorithms/functions.hpp"
#include "math/data_tables.hpp"
#include "math/ptx_backend.hpp"

namespace vyre::cuda {
namespace {

std::string function_name(vyre::UnOp op, vyre::Type type) {
  return "vyre_" + std::string(vyre::un_op_name(op)) + (type == vyre::Type::F32 ? "_f32" : "_f64");
}

template <class P>
MathFunction build_function(vyre::UnOp op) {
  constexpr bool kIs32 = std::is_same_v<P, math::P32>;
  const std::string name = function_name(op, kIs32 ? vyre::Type::F32 : vyre::Type::F64);
  math::PtxBackend b;
  std::string ptx;
  if constexpr (kIs32) {
    auto x = b.begin_f32(name);
    ptx = b.finish(math::evaluate<P>(b, op, x));
  } else {
    auto x = b.begin_f64(name);
    ptx = b.finish(math::evaluate<P>(b, op, x));
  }
  return {name, ptx, b.dependencies(), b.instructions()};
}


std::vector<MathFunction> build_library() {
  std::vector<MathFunction> library;
  const math::DataTable& table = math::two_over_pi_table();
  library.push_back({std::string(table.name), math::data_table_ptx(table), {}});
  for (vyre::UnOp op : math::kLibraryOps) {
    library.push_back(build_function<math::P32>(op));
    library.push_back(build_function<math::P64>(op));
  }
  std::set<std::string> constants;
  for (const MathFunction& f : library) {
    for (const std::string& dep : f.dependencies) {
      if (dep.rfind(math::kF64ConstantPrefix, 0) == 0) constants.insert(dep);
    }
  }
  for (const std::string& name : constants) library.push_back({name, math::f64_constant_ptx(name), {}});
  return library;
}

const std::map<std::string, const MathFunction*, std::less<>>& by_name() {
  static const auto index = [] {
    std::map<std::string, const MathFunction*, std::less<>> m;
    for (const MathFunction& f : math_library()) m.emplace(f.name, &f);
    return m;
  }();
  return index;
}

void visit(const MathFunction* f, std::set<std::string>& seen,
           std::vector<const MathFunction*>& order) {
  if (f == nullptr || !seen.insert(f->name).second) return;
  for (const std::string& dep : f->dependencies) visit(math_function_by_name(dep), seen, order);
  order.push_back(f);
}

}  // namespace

const std::vector<MathFunction>& math_library() {
  static const std::vector<MathFunction> library = build_library();
  return library;
}

const MathFunction* math_function(vyre::UnOp op, vyre::Type type) {
  if (!math::is_library_op(op)) return nullptr;
  if (type != vyre::Type::F32 && type != vyre::Type::F64) return nullptr;
  return math_function_by_name(function_name(op, type));
}

std::string math_inline_ptx(const MathFunction& f, const std::string& arg, const std::string& dest,
                            const std::string& prefix) {
  for (vyre::UnOp op : math::kLibraryOps) {
    for (bool is32 : {true, false}) {
      if (function_name(op, is32 ? vyre::Type::F32 : vyre::Type::F64) != f.name) continue;
      math::PtxBackend b(prefix);
      if (is32) {
        auto x = b.begin_inline_f32(f.name, arg);
        return b.finish_inline(math::evaluate<math::P32>(b, op, x), dest);
      }
      auto x = b.begin_inline_f64(f.name, arg);
      return b.finish_inline(math::evaluate<math::P64>(b, op, x), dest);
    }
  }
  return {};  // data, not a function
}

InlineBlock sin_cos_parts_inline(const std::string& x, const SinCosRegisters& dest,
                                 const std::string& prefix) {
  math::PtxBackend b(prefix);
  b.begin_inline("vyre_sin_cos_parts_f32");
  auto parts = math::sin_cos_parts_f32(b, b.inline_arg(x, math::PtxBackend::F32{}));
  std::string ptx = b.finish_inline_outputs(
      {{"f32", parts.s.r, dest.s}, {"f32", parts.c.r, dest.c}, {"b32", parts.n.r, dest.n}});
  return {std::move(ptx), b.dependencies(), b.instructions()};
}

InlineBlock sin_cos_select_inline(vyre::UnOp op, const SinCosRegisters& parts, const std::string& x,
                                  const std::string& dest, const std::string& prefix) {
  using F32 = math::PtxBackend::F32;
  using B32 = math::PtxBackend::B32;
  math::PtxBackend b(prefix);
  b.begin_inline(op == vyre::UnOp::Sin ? "vyre_sin_select_f32" : "vyre_cos_select_f32");
  math::SinCosF32<math::PtxBackend> in{b.inline_arg(parts.s, F32{}), b.inline_arg(parts.c, F32{}),
                                      b.inline_arg(parts.n, B32{})};
  auto y = math::sin_cos_select_f32(b, in, b.inline_arg(x, F32{}), op == vyre::UnOp::Sin ? 0 : 1);
  std::string ptx = b.finish_inline_outputs({{"f32", y.r, dest}});
  return {std::move(ptx), b.dependencies(), b.instructions()};
}

const MathFunction* math_function_by_name(std::string_view name) {
  const auto& index = by_name();
  auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

std::vector<const MathFunction*> math_closure(const std::vector<const MathFunction*>& roots) {
  std::set<std::string> seen;
  std::vector<const MathFunction*> order;
  for (const MathFunction* f : roots) visit(f, seen, order);
  return order;
}

}  // namespace vyre::cuda
