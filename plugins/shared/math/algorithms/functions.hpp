// The 14 library operations, each for P32 and P64, behind one dispatch over vyre::UnOp.
#pragma once

#include <array>

#include "math/algorithms/asin_acos.hpp"
#include "math/algorithms/atan.hpp"
#include "math/algorithms/exp.hpp"
#include "math/algorithms/hyperbolic.hpp"
#include "math/algorithms/inverse_sqrt.hpp"
#include "math/algorithms/log.hpp"
#include "math/algorithms/trig.hpp"
#include "vyre/ir.hpp"

namespace vyre::math {

// The unary operators the library implements, in library order.
inline constexpr std::array<vyre::UnOp, 14> kLibraryOps = {
    vyre::UnOp::Exp,  vyre::UnOp::Exp2, vyre::UnOp::Log,  vyre::UnOp::Log2, vyre::UnOp::Sin,
    vyre::UnOp::Cos,  vyre::UnOp::Tan,  vyre::UnOp::Asin, vyre::UnOp::Acos, vyre::UnOp::Atan,
    vyre::UnOp::Sinh, vyre::UnOp::Cosh, vyre::UnOp::Tanh, vyre::UnOp::InverseSqrt,
};

// The f32 functions whose algorithm takes an approximate first guess (and corrects it, or gives it
// little weight: sinh's 1/p), by the instruction that gives it: rsqrt.approx.ftz.f32 and
// rcp.approx.ftz.f32, the library's only .approx instructions (the CPU model sweeps
// each guess's admissible values, cpu_backend.hpp).
inline constexpr std::array<vyre::UnOp, 3> kRsqrtGuessOps = {vyre::UnOp::InverseSqrt, vyre::UnOp::Asin,
                                                             vyre::UnOp::Acos};
inline constexpr std::array<vyre::UnOp, 5> kRcpGuessOps = {vyre::UnOp::Tanh, vyre::UnOp::Sinh,
                                                           vyre::UnOp::Cosh, vyre::UnOp::Atan,
                                                           vyre::UnOp::Tan};

template <std::size_t N>
constexpr bool has_op(const std::array<vyre::UnOp, N>& ops, vyre::UnOp op) {
  for (auto o : ops) {
    if (o == op) return true;
  }
  return false;
}

constexpr bool is_library_op(vyre::UnOp op) { return has_op(kLibraryOps, op); }

// op(x) in precision P; `op` must satisfy is_library_op.
template <class P, class B>
typename P::template F<B> evaluate(B& b, vyre::UnOp op, const typename P::template F<B>& x) {
  switch (op) {
    case vyre::UnOp::Exp: return exp_fn<P>(b, x);
    case vyre::UnOp::Exp2: return exp2_fn<P>(b, x);
    case vyre::UnOp::Log: return log_fn<P>(b, x);
    case vyre::UnOp::Log2: return log2_fn<P>(b, x);
    case vyre::UnOp::Sin: return sin_fn<P>(b, x);
    case vyre::UnOp::Cos: return cos_fn<P>(b, x);
    case vyre::UnOp::Tan: return tan_fn<P>(b, x);
    case vyre::UnOp::Asin: return asin_fn<P>(b, x);
    case vyre::UnOp::Acos: return acos_fn<P>(b, x);
    case vyre::UnOp::Atan: return atan_fn<P>(b, x);
    case vyre::UnOp::Sinh: return sinh_fn<P>(b, x);
    case vyre::UnOp::Cosh: return cosh_fn<P>(b, x);
    case vyre::UnOp::Tanh: return tanh_fn<P>(b, x);
    case vyre::UnOp::InverseSqrt: return inverse_sqrt_fn<P>(b, x);
    default: break;
  }
  return x;  // unreachable for library ops
}

}  // namespace vyre::math
