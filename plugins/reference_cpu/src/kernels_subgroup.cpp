// Subgroup kernels (SPEC §2 "Subgroups", docs/SEMANTICS.md "Subgroups"): 32 lanes of consecutive
// local linear ids. Every subgroup an op runs for must have all 32 lanes active; the reference
// reports anything else as VYRE_ERR_EXECUTION.
#include <array>
#include <string>

#include <fmt/format.h>

#include "float_ops.hpp"
#include "int_ops.hpp"
#include "kernels.hpp"
#include "slots.hpp"
#include "vyre/error.hpp"

namespace vyre::refcpu {
namespace {

constexpr std::uint32_t kWidth = 32;

[[noreturn]] void incomplete_subgroup(const Instr& in, const ExecState& st, std::uint32_t subgroup,
                                      std::uint32_t active) {
  fail(VYRE_ERR_EXECUTION,
       fmt::format("{} ran with {} of the 32 lanes of subgroup {} active in workgroup [{}, {}, {}]",
                   (*st.sites)[in.site], active, subgroup, st.workgroup[0], st.workgroup[1],
                   st.workgroup[2]),
       "make every lane of a subgroup reach its subgroup operations together: no lane may have "
       "returned or be on another branch or loop iteration, and the workgroup size must be a "
       "multiple of 32");
}

// Calls f(base) for the first lane of each subgroup the lanes cover, after checking that each of
// those subgroups is complete.
template <class F>
void for_subgroups(const Instr& in, const ExecState& st, const LaneSet& lanes, F&& f) {
  if (lanes.dense) {
    if (lanes.n % kWidth != 0) incomplete_subgroup(in, st, lanes.n / kWidth, lanes.n % kWidth);
    for (std::uint32_t base = 0; base < lanes.n; base += kWidth) f(base);
    return;
  }
  std::uint32_t k = 0;
  while (k < lanes.n) {
    std::uint32_t base = lanes.idx[k] - lanes.idx[k] % kWidth;
    std::uint32_t count = 0;
    while (k + count < lanes.n && lanes.idx[k + count] < base + kWidth) ++count;
    if (count != kWidth) incomplete_subgroup(in, st, base / kWidth, count);
    f(base);
    k += count;
  }
}

void ballot_run(const Instr& in, ExecState& st, const LaneSet& lanes) {
  std::uint64_t* d = st.reg(in.dst);
  const std::uint64_t* cond = st.reg(in.a);
  for_subgroups(in, st, lanes, [&](std::uint32_t base) {
    std::uint32_t mask = 0;
    for (std::uint32_t l = 0; l < kWidth; ++l)
      if (cond[base + l] != 0) mask |= 1u << l;
    for (std::uint32_t l = 0; l < kWidth; ++l) d[base + l] = mask;
  });
}

// dst never aliases a source register (the compiler allocates it before freeing the operands).
void shuffle_run(const Instr& in, ExecState& st, const LaneSet& lanes) {
  std::uint64_t* d = st.reg(in.dst);
  const std::uint64_t* value = st.reg(in.a);
  const std::uint64_t* source = st.reg(in.b);
  for_subgroups(in, st, lanes, [&](std::uint32_t base) {
    for (std::uint32_t l = 0; l < kWidth; ++l)
      d[base + l] = value[base + (static_cast<std::uint32_t>(source[base + l]) % kWidth)];
  });
}

template <ReduceOp OP, Type T>
typename Slot<T>::C combine(typename Slot<T>::C a, typename Slot<T>::C b) {
  using C = typename Slot<T>::C;
  if constexpr (T == Type::F32 || T == Type::F64) {
    if constexpr (OP == ReduceOp::Add) return floatops::add(a, b);
    if constexpr (OP == ReduceOp::Mul) return floatops::mul(a, b);
    if constexpr (OP == ReduceOp::Min) return floatops::min(a, b);
    if constexpr (OP == ReduceOp::Max) return floatops::max(a, b);
  } else {
    if constexpr (OP == ReduceOp::Add) return intops::add(a, b);
    if constexpr (OP == ReduceOp::Mul) return intops::mul(a, b);
    if constexpr (OP == ReduceOp::Min) return intops::min(a, b);
    if constexpr (OP == ReduceOp::Max) return intops::max(a, b);
    if constexpr (OP == ReduceOp::And) return static_cast<C>(a & b);
    if constexpr (OP == ReduceOp::Or) return static_cast<C>(a | b);
    if constexpr (OP == ReduceOp::Xor) return static_cast<C>(a ^ b);
  }
}

// The fixed butterfly of SPEC §2: for offset 16, 8, 4, 2, 1: v = op(v, shuffle_xor(v, offset)).
// Every lane ends with the same bits (the ops are commutative); integer results do not depend on
// the order at all.
template <ReduceOp OP, Type T>
void reduce_run(const Instr& in, ExecState& st, const LaneSet& lanes) {
  using S = Slot<T>;
  using C = typename S::C;
  std::uint64_t* d = st.reg(in.dst);
  const std::uint64_t* value = st.reg(in.a);
  for_subgroups(in, st, lanes, [&](std::uint32_t base) {
    std::array<C, kWidth> v{};
    std::array<C, kWidth> next{};
    for (std::uint32_t l = 0; l < kWidth; ++l) v[l] = S::get(value[base + l]);
    for (std::uint32_t offset = kWidth / 2; offset > 0; offset /= 2) {
      for (std::uint32_t l = 0; l < kWidth; ++l) next[l] = combine<OP, T>(v[l], v[l ^ offset]);
      v = next;
    }
    for (std::uint32_t l = 0; l < kWidth; ++l) d[base + l] = S::put(v[l]);
  });
}

template <Type T>
KernelFn reduce_for(ReduceOp op) {
  switch (op) {
    case ReduceOp::Add: return &reduce_run<ReduceOp::Add, T>;
    case ReduceOp::Mul: return &reduce_run<ReduceOp::Mul, T>;
    case ReduceOp::Min: return &reduce_run<ReduceOp::Min, T>;
    case ReduceOp::Max: return &reduce_run<ReduceOp::Max, T>;
    default: break;
  }
  if constexpr (T == Type::F32 || T == Type::F64) {
    return nullptr;  // floats have no bitwise reductions
  } else {
    switch (op) {
      case ReduceOp::And: return &reduce_run<ReduceOp::And, T>;
      case ReduceOp::Or: return &reduce_run<ReduceOp::Or, T>;
      case ReduceOp::Xor: return &reduce_run<ReduceOp::Xor, T>;
      default: return nullptr;
    }
  }
}

}  // namespace

KernelFn ballot_kernel() { return &ballot_run; }
KernelFn shuffle_kernel() { return &shuffle_run; }

KernelFn reduce_kernel(ReduceOp op, Type t) {
  switch (t) {
    case Type::U32: return reduce_for<Type::U32>(op);
    case Type::I32: return reduce_for<Type::I32>(op);
    case Type::U64: return reduce_for<Type::U64>(op);
    case Type::I64: return reduce_for<Type::I64>(op);
    case Type::F32: return reduce_for<Type::F32>(op);
    case Type::F64: return reduce_for<Type::F64>(op);
    default: return nullptr;
  }
}

}  // namespace vyre::refcpu
