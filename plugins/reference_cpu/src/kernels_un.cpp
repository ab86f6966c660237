// Unary operator kernels: one instantiation per (operator, type) the catalog defines.
#include "float_ops.hpp"
#include "int_ops.hpp"
#include "kernel_table.hpp"
#include "kernels.hpp"
#include "slots.hpp"

namespace vyre::refcpu {
namespace {

constexpr bool defined(UnOp op, Type t) {
  switch (op) {
    case UnOp::Not: case UnOp::LogicalNot: return t == Type::Bool || is_int(t);
    case UnOp::Neg: case UnOp::Abs: case UnOp::Sign: return is_int(t) || is_float(t);
    case UnOp::Popcount: case UnOp::Clz: case UnOp::Ctz: case UnOp::ReverseBits: return is_int(t);
    default: return is_float(t);  // rounding, sqrt family, classification, transcendentals
  }
}

template <UnOp OP, Type T>
std::uint64_t int_apply(typename Slot<T>::C a) {
  using S = Slot<T>;
  using C = typename S::C;
  if constexpr (OP == UnOp::Neg) return S::put(intops::neg(a));
  if constexpr (OP == UnOp::Not) return S::put(static_cast<C>(~a));
  if constexpr (OP == UnOp::LogicalNot) return a == 0;
  if constexpr (OP == UnOp::Abs) return S::put(intops::abs(a));
  if constexpr (OP == UnOp::Sign) return S::put(intops::sign(a));
  if constexpr (OP == UnOp::Popcount) return intops::popcount(a);
  if constexpr (OP == UnOp::Clz) return intops::clz(a);
  if constexpr (OP == UnOp::Ctz) return intops::ctz(a);
  if constexpr (OP == UnOp::ReverseBits) return S::put(intops::reverse_bits(a));
}

template <UnOp OP, Type T>
std::uint64_t float_apply(typename Slot<T>::C a) {
  using S = Slot<T>;
  namespace f = floatops;
  if constexpr (OP == UnOp::IsNan) return f::is_nan(a);
  if constexpr (OP == UnOp::IsInf) return f::is_inf(a);
  if constexpr (OP == UnOp::IsFinite) return f::is_finite(a);
  if constexpr (OP == UnOp::Neg) return S::put(f::neg(a));
  if constexpr (OP == UnOp::Abs) return S::put(f::abs(a));
  if constexpr (OP == UnOp::Sign) return S::put(f::sign(a));
  if constexpr (OP == UnOp::Floor) return S::put(f::floor(a));
  if constexpr (OP == UnOp::Ceil) return S::put(f::ceil(a));
  if constexpr (OP == UnOp::Trunc) return S::put(f::trunc(a));
  if constexpr (OP == UnOp::Round) return S::put(f::round(a));
  if constexpr (OP == UnOp::Sqrt) return S::put(f::sqrt(a));
  if constexpr (OP == UnOp::Reciprocal) return S::put(f::reciprocal(a));
  if constexpr (OP == UnOp::InverseSqrt) return S::put(f::inverse_sqrt(a));
  if constexpr (OP == UnOp::Exp) return S::put(f::exp(a));
  if constexpr (OP == UnOp::Exp2) return S::put(f::exp2(a));
  if constexpr (OP == UnOp::Log) return S::put(f::log(a));
  if constexpr (OP == UnOp::Log2) return S::put(f::log2(a));
  if constexpr (OP == UnOp::Sin) return S::put(f::sin(a));
  if constexpr (OP == UnOp::Cos) return S::put(f::cos(a));
  if constexpr (OP == UnOp::Tan) return S::put(f::tan(a));
  if constexpr (OP == UnOp::Asin) return S::put(f::asin(a));
  if constexpr (OP == UnOp::Acos) return S::put(f::acos(a));
  if constexpr (OP == UnOp::Atan) return S::put(f::atan(a));
  if constexpr (OP == UnOp::Sinh) return S::put(f::sinh(a));
  if constexpr (OP == UnOp::Cosh) return S::put(f::cosh(a));
  if constexpr (OP == UnOp::Tanh) return S::put(f::tanh(a));
}

template <UnOp OP, Type T>
inline std::uint64_t apply(std::uint64_t a) {
  if constexpr (T == Type::Bool) {
    return a ^ 1u;  // not and logical_not are both logical negation on bool
  } else if constexpr (is_float(T)) {
    return float_apply<OP, T>(Slot<T>::get(a));
  } else {
    return int_apply<OP, T>(Slot<T>::get(a));
  }
}

template <UnOp OP, Type T>
void run(const Instr& in, ExecState& st, const LaneSet& lanes) {
  std::uint64_t* d = st.reg(in.dst);
  const std::uint64_t* a = st.reg(in.a);
  for_lanes(lanes, [&](std::uint32_t i) { d[i] = apply<OP, T>(a[i]); });
}

struct UnKernels {
  using Op = UnOp;
  static constexpr std::size_t kCount = kUnOpCount;
  template <UnOp OP, Type T>
  static constexpr KernelFn entry() {
    if constexpr (defined(OP, T)) return &run<OP, T>;
    return nullptr;
  }
};

}  // namespace

KernelFn un_kernel(UnOp op, Type operand) { return family_kernel<UnKernels>(op, operand); }

}  // namespace vyre::refcpu
