// Memory kernels: loads, stores and atomics on global and workgroup buffers (SPEC §2 "Types",
// "Out of bounds", "Atomics"). Every element access is a relaxed std::atomic_ref, so workgroups
// running on other threads may touch the same buffer without undefined behaviour.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>

#include "float_ops.hpp"
#include "half.hpp"
#include "kernels.hpp"
#include "slots.hpp"

namespace vyre::refcpu {
namespace {

constexpr std::uint64_t kOutOfBounds = std::numeric_limits<std::uint64_t>::max();

// The element index an index operand names; a negative i32 is out of bounds.
template <Type INDEX>
inline std::uint64_t element_index(std::uint64_t slot) {
  if constexpr (INDEX == Type::I32) {
    auto v = static_cast<std::int32_t>(static_cast<std::uint32_t>(slot));
    return v < 0 ? kOutOfBounds : static_cast<std::uint64_t>(v);
  }
  return static_cast<std::uint32_t>(slot);
}

// The C++ type of one stored element.
template <Type S>
struct Element {
  using T = std::conditional_t<byte_size(S) == 1, std::uint8_t,
            std::conditional_t<byte_size(S) == 2, std::uint16_t,
            std::conditional_t<byte_size(S) == 4, std::uint32_t, std::uint64_t>>>;
};

template <class T>
inline T read_element(std::byte* base, std::uint64_t i) {
  return std::atomic_ref<T>(reinterpret_cast<T*>(base)[i]).load(std::memory_order_relaxed);
}
template <class T>
inline void write_element(std::byte* base, std::uint64_t i, T v) {
  std::atomic_ref<T>(reinterpret_cast<T*>(base)[i]).store(v, std::memory_order_relaxed);
}

// Stored element -> register slot of the widened value type (exact).
template <Type S>
inline std::uint64_t widen(typename Element<S>::T e) {
  if constexpr (S == Type::Bool) return e != 0 ? 1u : 0u;  // any non-zero word is true
  if constexpr (S == Type::I8) return static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int8_t>(e)));
  if constexpr (S == Type::I16) return static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int16_t>(e)));
  if constexpr (S == Type::F16) return f16_to_f32_bits(e);
  if constexpr (S == Type::BF16) return bf16_to_f32_bits(e);
  if constexpr (S != Type::Bool && S != Type::I8 && S != Type::I16 && S != Type::F16 && S != Type::BF16)
    return static_cast<std::uint64_t>(e);
}

// Register slot -> stored element: integers truncate, floats round to nearest even, every NaN is
// written as the canonical NaN, bool is a 0/1 word.
template <Type S>
inline typename Element<S>::T narrow(std::uint64_t slot) {
  using T = typename Element<S>::T;
  if constexpr (S == Type::F32) return floatops::canonical_bits(Slot<Type::F32>::get(slot));
  if constexpr (S == Type::F64) return floatops::canonical_bits(Slot<Type::F64>::get(slot));
  if constexpr (S == Type::F16) return f32_bits_to_f16(static_cast<std::uint32_t>(slot));
  if constexpr (S == Type::BF16) return f32_bits_to_bf16(static_cast<std::uint32_t>(slot));
  if constexpr (S == Type::Bool) return slot != 0 ? 1u : 0u;
  if constexpr (!is_float(S) && S != Type::Bool) return static_cast<T>(slot);
}

template <Type S, Type INDEX>
void load_run(const Instr& in, ExecState& st, const LaneSet& lanes) {
  using T = typename Element<S>::T;
  const MemView view = st.mem[in.mem];
  std::uint64_t* d = st.reg(in.dst);
  const std::uint64_t* idx = st.reg(in.a);
  for_lanes(lanes, [&](std::uint32_t i) {
    std::uint64_t e = element_index<INDEX>(idx[i]);
    d[i] = e < view.count ? widen<S>(read_element<T>(view.data, e)) : 0u;
  });
}

template <Type S, Type INDEX>
void store_run(const Instr& in, ExecState& st, const LaneSet& lanes) {
  using T = typename Element<S>::T;
  const MemView view = st.mem[in.mem];
  const std::uint64_t* idx = st.reg(in.a);
  const std::uint64_t* value = st.reg(in.b);
  for_lanes(lanes, [&](std::uint32_t i) {
    std::uint64_t e = element_index<INDEX>(idx[i]);
    if (e < view.count) write_element<T>(view.data, e, narrow<S>(value[i]));
  });
}

// ---- atomics ------------------------------------------------------------------------------------

template <AtomicOp OP, class C>
inline C atomic_apply(std::atomic_ref<C> ref, C value, C expected) {
  constexpr auto relaxed = std::memory_order_relaxed;
  if constexpr (OP == AtomicOp::Add) return ref.fetch_add(value, relaxed);
  if constexpr (OP == AtomicOp::And) return ref.fetch_and(value, relaxed);
  if constexpr (OP == AtomicOp::Or) return ref.fetch_or(value, relaxed);
  if constexpr (OP == AtomicOp::Xor) return ref.fetch_xor(value, relaxed);
  if constexpr (OP == AtomicOp::Exchange) return ref.exchange(value, relaxed);
  if constexpr (OP == AtomicOp::CompareExchange) {
    C old = expected;
    ref.compare_exchange_strong(old, value, relaxed, relaxed);
    return old;  // the element before the operation, whether or not it matched
  }
  if constexpr (OP == AtomicOp::Min || OP == AtomicOp::Max) {
    C old = ref.load(relaxed);
    for (;;) {
      C next = (OP == AtomicOp::Min) ? (value < old ? value : old) : (old < value ? value : old);
      if (next == old || ref.compare_exchange_weak(old, next, relaxed, relaxed)) return old;
    }
  }
}

template <AtomicOp OP, Type E, Type INDEX>
void atomic_run(const Instr& in, ExecState& st, const LaneSet& lanes) {
  using C = typename Slot<E>::C;  // u32, i32 or u64: the element is its own value type
  const MemView view = st.mem[in.mem];
  std::uint64_t* d = st.reg(in.dst);
  const std::uint64_t* idx = st.reg(in.a);
  const std::uint64_t* value = st.reg(in.b);
  const std::uint64_t* expected = st.reg(in.c);
  for_lanes(lanes, [&](std::uint32_t i) {
    std::uint64_t e = element_index<INDEX>(idx[i]);
    if (e >= view.count) {
      d[i] = 0;  // out of bounds: yields 0, changes nothing
      return;
    }
    std::atomic_ref<C> ref(reinterpret_cast<C*>(view.data)[e]);
    d[i] = Slot<E>::put(atomic_apply<OP>(ref, Slot<E>::get(value[i]), Slot<E>::get(expected[i])));
  });
}

template <Type INDEX>
KernelFn load_for_index(Type storage) {
  switch (storage) {
    case Type::Bool: return &load_run<Type::Bool, INDEX>;
    case Type::U32: return &load_run<Type::U32, INDEX>;
    case Type::I32: return &load_run<Type::I32, INDEX>;
    case Type::U64: return &load_run<Type::U64, INDEX>;
    case Type::I64: return &load_run<Type::I64, INDEX>;
    case Type::F32: return &load_run<Type::F32, INDEX>;
    case Type::F64: return &load_run<Type::F64, INDEX>;
    case Type::U8: return &load_run<Type::U8, INDEX>;
    case Type::U16: return &load_run<Type::U16, INDEX>;
    case Type::I8: return &load_run<Type::I8, INDEX>;
    case Type::I16: return &load_run<Type::I16, INDEX>;
    case Type::F16: return &load_run<Type::F16, INDEX>;
    case Type::BF16: return &load_run<Type::BF16, INDEX>;
  }
  return nullptr;
}

template <Type INDEX>
KernelFn store_for_index(Type storage) {
  switch (storage) {
    case Type::Bool: return &store_run<Type::Bool, INDEX>;
    case Type::U32: return &store_run<Type::U32, INDEX>;
    case Type::I32: return &store_run<Type::I32, INDEX>;
    case Type::U64: return &store_run<Type::U64, INDEX>;
    case Type::I64: return &store_run<Type::I64, INDEX>;
    case Type::F32: return &store_run<Type::F32, INDEX>;
    case Type::F64: return &store_run<Type::F64, INDEX>;
    case Type::U8: return &store_run<Type::U8, INDEX>;
    case Type::U16: return &store_run<Type::U16, INDEX>;
    case Type::I8: return &store_run<Type::I8, INDEX>;
    case Type::I16: return &store_run<Type::I16, INDEX>;
    case Type::F16: return &store_run<Type::F16, INDEX>;
    case Type::BF16: return &store_run<Type::BF16, INDEX>;
  }
  return nullptr;
}

template <Type E, Type INDEX>
KernelFn atomic_for(AtomicOp op) {
  switch (op) {
    case AtomicOp::Add: return &atomic_run<AtomicOp::Add, E, INDEX>;
    case AtomicOp::Exchange: return &atomic_run<AtomicOp::Exchange, E, INDEX>;
    case AtomicOp::CompareExchange: return &atomic_run<AtomicOp::CompareExchange, E, INDEX>;
    default: break;
  }
  if constexpr (E == Type::U64) {
    return nullptr;  // u64 has add, exchange and compare_exchange only
  } else {
    switch (op) {
      case AtomicOp::And: return &atomic_run<AtomicOp::And, E, INDEX>;
      case AtomicOp::Or: return &atomic_run<AtomicOp::Or, E, INDEX>;
      case AtomicOp::Xor: return &atomic_run<AtomicOp::Xor, E, INDEX>;
      case AtomicOp::Min: return &atomic_run<AtomicOp::Min, E, INDEX>;
      case AtomicOp::Max: return &atomic_run<AtomicOp::Max, E, INDEX>;
      default: return nullptr;
    }
  }
}

template <Type INDEX>
KernelFn atomic_for_index(AtomicOp op, Type element) {
  if (element == Type::U32) return atomic_for<Type::U32, INDEX>(op);
  if (element == Type::I32) return atomic_for<Type::I32, INDEX>(op);
  if (element == Type::U64) return atomic_for<Type::U64, INDEX>(op);
  return nullptr;
}

}  // namespace

KernelFn load_kernel(Type storage, Type index) {
  if (index == Type::U32) return load_for_index<Type::U32>(storage);
  if (index == Type::I32) return load_for_index<Type::I32>(storage);
  return nullptr;
}

KernelFn store_kernel(Type storage, Type index) {
  if (index == Type::U32) return store_for_index<Type::U32>(storage);
  if (index == Type::I32) return store_for_index<Type::I32>(storage);
  return nullptr;
}

KernelFn atomic_kernel(AtomicOp op, Type element, Type index) {
  if (index == Type::U32) return atomic_for_index<Type::U32>(op, element);
  if (index == Type::I32) return atomic_for_index<Type::I32>(op, element);
  return nullptr;
}

}  // namespace vyre::refcpu
