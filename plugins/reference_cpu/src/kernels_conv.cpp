// Conversion and data-movement kernels: cast, bitcast, fma, select, copy.
#include <array>
#include <bit>
#include <utility>

#include "float_ops.hpp"
#include "kernels.hpp"
#include "slots.hpp"

namespace vyre::refcpu {
namespace {

constexpr Type kValue[] = {Type::Bool, Type::U32, Type::I32, Type::U64, Type::I64, Type::F32, Type::F64};
constexpr std::size_t kValueCount = 7;

// SPEC §2 "Casts": int->int truncates or extends by the source's signedness; float->int rounds
// toward zero and saturates (NaN -> 0); int->float and f64->f32 round to nearest even; bool is 0/1;
// number->bool is x != 0 (NaN -> true); a NaN crossing f32<->f64 becomes the canonical NaN.
template <Type FROM, Type TO>
std::uint64_t cast_apply(std::uint64_t slot) {
  using In = typename Slot<FROM>::C;
  using Out = typename Slot<TO>::C;
  In a = Slot<FROM>::get(slot);
  if constexpr (TO == Type::Bool) {
    return !(a == In{0});
  } else if constexpr (FROM == Type::Bool) {
    return Slot<TO>::put(a ? Out{1} : Out{0});
  } else if constexpr (is_float(FROM) && is_float(TO)) {
    if constexpr (TO == Type::F64) return floatops::canonical_bits(static_cast<double>(a));
    return floatops::canonical_bits(static_cast<float>(a));
  } else if constexpr (is_float(FROM)) {
    return Slot<TO>::put(floatops::to_int_saturating<Out>(a));
  } else {
    return Slot<TO>::put(static_cast<Out>(a));  // int->int (modular / extending), int->float (RNE)
  }
}

// Same-width reinterpretation; a float source's NaN reads as the canonical NaN (SEMANTICS).
template <Type FROM, Type TO>
std::uint64_t bitcast_apply(std::uint64_t slot) {
  if constexpr (FROM == Type::F32) return floatops::canonical_bits(Slot<FROM>::get(slot));
  if constexpr (FROM == Type::F64) return floatops::canonical_bits(Slot<FROM>::get(slot));
  return slot;  // integer sources: the slot already holds the zero-extended bits
}

constexpr bool cast_ok(Type from, Type to) { return from != to; }
constexpr bool bitcast_ok(Type from, Type to) {
  return from != to && from != Type::Bool && to != Type::Bool && byte_size(from) == byte_size(to);
}

template <Type FROM, Type TO>
void cast_run(const Instr& in, ExecState& st, const LaneSet& lanes) {
  std::uint64_t* d = st.reg(in.dst);
  const std::uint64_t* a = st.reg(in.a);
  for_lanes(lanes, [&](std::uint32_t i) { d[i] = cast_apply<FROM, TO>(a[i]); });
}

template <Type FROM, Type TO>
void bitcast_run(const Instr& in, ExecState& st, const LaneSet& lanes) {
  std::uint64_t* d = st.reg(in.dst);
  const std::uint64_t* a = st.reg(in.a);
  for_lanes(lanes, [&](std::uint32_t i) { d[i] = bitcast_apply<FROM, TO>(a[i]); });
}

template <std::size_t F, std::size_t T>
constexpr KernelFn cast_entry() {
  if constexpr (cast_ok(kValue[F], kValue[T])) return &cast_run<kValue[F], kValue[T]>;
  return nullptr;
}
template <std::size_t F, std::size_t T>
constexpr KernelFn bitcast_entry() {
  if constexpr (bitcast_ok(kValue[F], kValue[T])) return &bitcast_run<kValue[F], kValue[T]>;
  return nullptr;
}

template <std::size_t... I>
constexpr std::array<KernelFn, kValueCount * kValueCount> cast_table(std::index_sequence<I...>) {
  return {cast_entry<I / kValueCount, I % kValueCount>()...};
}
template <std::size_t... I>
constexpr std::array<KernelFn, kValueCount * kValueCount> bitcast_table(std::index_sequence<I...>) {
  return {bitcast_entry<I / kValueCount, I % kValueCount>()...};
}

constexpr auto kCasts = cast_table(std::make_index_sequence<kValueCount * kValueCount>{});
constexpr auto kBitcasts = bitcast_table(std::make_index_sequence<kValueCount * kValueCount>{});

constexpr std::size_t value_index(Type t) {
  for (std::size_t i = 0; i < kValueCount; ++i)
    if (kValue[i] == t) return i;
  return kValueCount;
}

KernelFn lookup(const std::array<KernelFn, kValueCount * kValueCount>& table, Type from, Type to) {
  std::size_t f = value_index(from);
  std::size_t t = value_index(to);
  if (f == kValueCount || t == kValueCount) return nullptr;
  return table[f * kValueCount + t];
}

template <Type T>
void fma_run(const Instr& in, ExecState& st, const LaneSet& lanes) {
  using S = Slot<T>;
  std::uint64_t* d = st.reg(in.dst);
  const std::uint64_t* a = st.reg(in.a);
  const std::uint64_t* b = st.reg(in.b);
  const std::uint64_t* c = st.reg(in.c);
  for_lanes(lanes, [&](std::uint32_t i) {
    d[i] = S::put(floatops::fma(S::get(a[i]), S::get(b[i]), S::get(c[i])));
  });
}

void select_run(const Instr& in, ExecState& st, const LaneSet& lanes) {
  std::uint64_t* d = st.reg(in.dst);
  const std::uint64_t* cond = st.reg(in.a);
  const std::uint64_t* x = st.reg(in.b);
  const std::uint64_t* y = st.reg(in.c);
  for_lanes(lanes, [&](std::uint32_t i) { d[i] = cond[i] != 0 ? x[i] : y[i]; });
}

void copy_run(const Instr& in, ExecState& st, const LaneSet& lanes) {
  std::uint64_t* d = st.reg(in.dst);
  const std::uint64_t* a = st.reg(in.a);
  for_lanes(lanes, [&](std::uint32_t i) { d[i] = a[i]; });
}

}  // namespace

KernelFn cast_kernel(Type from, Type to) { return lookup(kCasts, from, to); }
KernelFn bitcast_kernel(Type from, Type to) { return lookup(kBitcasts, from, to); }

KernelFn fma_kernel(Type t) {
  if (t == Type::F32) return &fma_run<Type::F32>;
  if (t == Type::F64) return &fma_run<Type::F64>;
  return nullptr;
}

KernelFn select_kernel() { return &select_run; }
KernelFn copy_kernel() { return &copy_run; }

}  // namespace vyre::refcpu
