// Binary operator kernels: one instantiation per (operator, type) the catalog defines.
#include <array>
#include <utility>

#include "float_ops.hpp"
#include "int_ops.hpp"
#include "kernels.hpp"
#include "slots.hpp"

namespace vyre::refcpu {
namespace {

constexpr bool int_value(Type t) { return t == Type::U32 || t == Type::I32 || t == Type::U64 || t == Type::I64; }
constexpr bool float_value(Type t) { return t == Type::F32 || t == Type::F64; }

constexpr bool defined(BinOp op, Type t) {
  if (int_value(t)) return true;
  if (float_value(t)) {
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
  } else if constexpr (float_value(T)) {
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

template <BinOp OP, Type T>
constexpr KernelFn entry() {
  if constexpr (defined(OP, T)) return &run<OP, T>;
  return nullptr;
}

template <Type T, std::size_t... I>
constexpr std::array<KernelFn, kBinOpCount> table(std::index_sequence<I...>) {
  return {entry<static_cast<BinOp>(I), T>()...};
}

template <Type T>
constexpr std::array<KernelFn, kBinOpCount> kTable = table<T>(std::make_index_sequence<kBinOpCount>{});

}  // namespace

KernelFn bin_kernel(BinOp op, Type operand) {
  auto i = static_cast<std::size_t>(op);
  if (i >= kBinOpCount) return nullptr;
  switch (operand) {
    case Type::Bool: return kTable<Type::Bool>[i];
    case Type::U32: return kTable<Type::U32>[i];
    case Type::I32: return kTable<Type::I32>[i];
    case Type::U64: return kTable<Type::U64>[i];
    case Type::I64: return kTable<Type::I64>[i];
    case Type::F32: return kTable<Type::F32>[i];
    case Type::F64: return kTable<Type::F64>[i];
    default: return nullptr;
  }
}

}  // namespace vyre::refcpu
