// Binary operator kernels: one instantiation per (operator, type) the catalog defines.
#include "float_ops.hpp"
#include "int_ops.hpp"
#include "kernel_table.hpp"
#include "kernels.hpp"
#include "slots.hpp"

namespace vyre::refcpu {
namespace {

constexpr bool defined(BinOp op, Type t) {
  if (is_int(t)) return true;
  if (is_float(t)) {
    switch (op) {
      case BinOp::Add: case BinOp::Sub: case BinOp::Mul: case BinOp::Div: case BinOp::Min:
      case BinOp::Max: case BinOp::Eq: case BinOp::Ne: case BinOp::Lt: case BinOp::Le:
      case BinOp::Gt: case BinOp::Ge:
        return true;
      default: return false;
    }
  }
  if (t == Type::Bool) {
    switch (op) {
      case BinOp::And: case BinOp::Or: case BinOp::Xor: case BinOp::Eq: case BinOp::Ne:
      case BinOp::LogicalAnd: case BinOp::LogicalOr:
        return true;
      default: return false;
    }
  }
  return false;
}

template <BinOp OP, Type T>
std::uint64_t compare(typename Slot<T>::C a, typename Slot<T>::C b) {
  if constexpr (OP == BinOp::Eq) return a == b;
  if constexpr (OP == BinOp::Ne) return a != b;
  if constexpr (OP == BinOp::Lt) return a < b;
  if constexpr (OP == BinOp::Le) return a <= b;
  if constexpr (OP == BinOp::Gt) return a > b;
  if constexpr (OP == BinOp::Ge) return a >= b;
}

template <BinOp OP, Type T>
std::uint64_t int_apply(typename Slot<T>::C a, std::uint64_t b_slot) {
  using S = Slot<T>;
  using C = typename S::C;
  C b = S::get(b_slot);
  auto amount = static_cast<std::uint32_t>(b_slot);
  if constexpr (OP == BinOp::Add) return S::put(intops::add(a, b));
  if constexpr (OP == BinOp::Sub) return S::put(intops::sub(a, b));
  if constexpr (OP == BinOp::Mul) return S::put(intops::mul(a, b));
  if constexpr (OP == BinOp::Div) return S::put(intops::div(a, b));
  if constexpr (OP == BinOp::Mod) return S::put(intops::mod(a, b));
  if constexpr (OP == BinOp::Shl) return S::put(intops::shl(a, amount));
  if constexpr (OP == BinOp::Shr) return S::put(intops::shr(a, amount));
  if constexpr (OP == BinOp::Rotl) return S::put(intops::rotl(a, amount));
  if constexpr (OP == BinOp::Rotr) return S::put(intops::rotr(a, amount));
  if constexpr (OP == BinOp::Min) return S::put(intops::min(a, b));
  if constexpr (OP == BinOp::Max) return S::put(intops::max(a, b));
  if constexpr (OP == BinOp::AbsDiff) return static_cast<std::uint64_t>(intops::abs_diff(a, b));
  if constexpr (OP == BinOp::SatAdd) return S::put(intops::sat_add(a, b));
  if constexpr (OP == BinOp::SatSub) return S::put(intops::sat_sub(a, b));
  if constexpr (OP == BinOp::SatMul) return S::put(intops::sat_mul(a, b));
  if constexpr (OP == BinOp::MulHigh) return S::put(intops::mul_high(a, b));
  if constexpr (OP == BinOp::And) return S::put(static_cast<C>(a & b));
  if constexpr (OP == BinOp::Or) return S::put(static_cast<C>(a | b));
  if constexpr (OP == BinOp::Xor) return S::put(static_cast<C>(a ^ b));
  if constexpr (is_comparison(OP)) return compare<OP, T>(a, b);
  if constexpr (OP == BinOp::LogicalAnd) return (a != 0) && (b != 0);
  if constexpr (OP == BinOp::LogicalOr) return (a != 0) || (b != 0);
}

template <BinOp OP, Type T>
std::uint64_t float_apply(typename Slot<T>::C a, typename Slot<T>::C b) {
  using S = Slot<T>;
  if constexpr (OP == BinOp::Add) return S::put(floatops::add(a, b));
  if constexpr (OP == BinOp::Sub) return S::put(floatops::sub(a, b));
  if constexpr (OP == BinOp::Mul) return S::put(floatops::mul(a, b));
  if constexpr (OP == BinOp::Div) return S::put(floatops::div(a, b));
  if constexpr (OP == BinOp::Min) return S::put(floatops::min(a, b));
  if constexpr (OP == BinOp::Max) return S::put(floatops::max(a, b));
  if constexpr (is_comparison(OP)) return compare<OP, T>(a, b);
}

// bool slots are 0 or 1, so the bitwise operators are the logical ones.
template <BinOp OP>
std::uint64_t bool_apply(std::uint64_t a, std::uint64_t b) {
  if constexpr (OP == BinOp::And || OP == BinOp::LogicalAnd) return a & b;
  if constexpr (OP == BinOp::Or || OP == BinOp::LogicalOr) return a | b;
  if constexpr (OP == BinOp::Xor || OP == BinOp::Ne) return a ^ b;
  if constexpr (OP == BinOp::Eq) return (a ^ b) ^ 1u;
}

template <BinOp OP, Type T>
inline std::uint64_t apply(std::uint64_t a, std::uint64_t b) {
  if constexpr (T == Type::Bool) {
    return bool_apply<OP>(a, b);
  } else if constexpr (is_float(T)) {
    return float_apply<OP, T>(Slot<T>::get(a), Slot<T>::get(b));
  } else {
    return int_apply<OP, T>(Slot<T>::get(a), b);
  }
}

template <BinOp OP, Type T>
void run(const Instr& in, ExecState& st, const LaneSet& lanes) {
  std::uint64_t* d = st.reg(in.dst);
  const std::uint64_t* a = st.reg(in.a);
  const std::uint64_t* b = st.reg(in.b);
  for_lanes(lanes, [&](std::uint32_t i) { d[i] = apply<OP, T>(a[i], b[i]); });
}

struct BinKernels {
  using Op = BinOp;
  static constexpr std::size_t kCount = kBinOpCount;
  template <BinOp OP, Type T>
  static constexpr KernelFn entry() {
    if constexpr (defined(OP, T)) return &run<OP, T>;
    return nullptr;
  }
};

}  // namespace

KernelFn bin_kernel(BinOp op, Type operand) { return family_kernel<BinKernels>(op, operand); }

}  // namespace vyre::refcpu
