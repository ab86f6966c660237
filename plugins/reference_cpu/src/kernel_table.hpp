// Compile-time kernel tables for an operator family (BinOp, UnOp): one row per value type, indexed
// by operator. The binary and unary kernel files differ only in what their kernels compute and on
// which types they are defined, so the table machinery lives here once.
#pragma once

#include <array>
#include <cstddef>
#include <utility>

#include "exec.hpp"
#include "vyre/types.hpp"

namespace vyre::refcpu {

// A `Family` supplies:
//   using Op = ...;                            the operator enum, numbered 0..kCount-1
//   static constexpr std::size_t kCount;       how many operators it has
//   template <Op OP, Type T> static constexpr KernelFn entry();
//                                              the kernel, or nullptr where OP is undefined on T
template <typename Family, Type T, std::size_t... I>
constexpr std::array<KernelFn, Family::kCount> kernel_row(std::index_sequence<I...>) {
  return {Family::template entry<static_cast<typename Family::Op>(I), T>()...};
}

template <typename Family, Type T>
inline constexpr std::array<KernelFn, Family::kCount> kKernelRow =
    kernel_row<Family, T>(std::make_index_sequence<Family::kCount>{});

// The kernel of `op` on operands of type `operand`; nullptr for an operator out of range, a
// storage-only type, or a combination the family leaves undefined.
template <typename Family>
KernelFn family_kernel(typename Family::Op op, Type operand) {
  auto index = static_cast<std::size_t>(op);
  if (index >= Family::kCount) return nullptr;
  switch (operand) {
    case Type::Bool: return kKernelRow<Family, Type::Bool>[index];
    case Type::U32: return kKernelRow<Family, Type::U32>[index];
    case Type::I32: return kKernelRow<Family, Type::I32>[index];
    case Type::U64: return kKernelRow<Family, Type::U64>[index];
    case Type::I64: return kKernelRow<Family, Type::I64>[index];
    case Type::F32: return kKernelRow<Family, Type::F32>[index];
    case Type::F64: return kKernelRow<Family, Type::F64>[index];
    default: return nullptr;
  }
}

}  // namespace vyre::refcpu
