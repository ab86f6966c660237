// Witness tables (SPEC §5): per storage type, the edge values every op is fed, plus the values
// near each op's branch points and the seeded random values that follow them.
//
// Values are bit patterns zero-extended from the type's width (as vyre::Expr literals are):
// f32 1.0 is 0x3F800000, i32 -1 is 0x00000000FFFFFFFF, bool true is 1.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "vyre/ops.hpp"
#include "vyre/types.hpp"

namespace vyre::conform {

struct Witness {
  std::string_view name;  // "+0", "max_subnormal", "min+1", "alternating_10", ...
  std::uint64_t bits;
};

// The named edge values of SPEC §5 for storage type `t`. Integers: 0, 1, 2, max, max-1, min,
// min+1, -1, the sign-bit pattern (0x80000000-style), both alternating-bit patterns. Floats:
// ±0, ±inf, the canonical NaN (and NaNs with other payloads, as inputs), smallest/largest
// subnormal, smallest/largest normal, 1, -1, 0.5, 1/3, pi. bool: false, true.
// Entries may share bits (u32 "-1" is "max"); witness_values() removes duplicates.
const std::vector<Witness>& witness_table(Type t);

// The distinct bit patterns of witness_table(t), in table order.
std::vector<std::uint64_t> witness_values(Type t);

// Values near the branch points of `op` for operand `operand` (its type is op.operands[operand],
// or for load/store the type the test feeds): for floats each point and its two neighbours,
// e.g. ln(FLT_MAX) for un.exp.f32, multiples of pi/2 for sin/cos/tan, 2^31 for float->int casts,
// 65520 for store.f16; for integers e.g. the bit width and its neighbours for shift amounts.
// Empty when the op has none beyond the type's table.
std::vector<std::uint64_t> branch_points(const OpInfo& op, std::size_t operand, Type operand_type);

// The witness table, then the op's branch points, without duplicates.
std::vector<std::uint64_t> op_witnesses(const OpInfo& op, std::size_t operand, Type operand_type);

// A seeded random value of type `t`: a pure function of (seed, stream, index), so any single case
// can be regenerated on its own. Alternates between raw random bits and values of moderate
// magnitude (floats with exponents near 0, small integers), so both the whole bit space and the
// common range are covered. bool: 0 or 1.
std::uint64_t random_value(Type t, std::uint64_t seed, std::uint64_t stream, std::uint64_t index);

// The canonical quiet NaN of a float storage type (SPEC §2): f32 0x7FC00000, f64
// 0x7FF8000000000000, f16 0x7E00, bf16 0x7FC0.
std::uint64_t canonical_nan(Type t);

// Bits of `value` rounded (to nearest even) into float type `t` (f16, bf16, f32 or f64), and the
// neighbouring representable values (toward +inf / -inf; NaN and the infinities stay put).
std::uint64_t float_bits(Type t, double value);
std::uint64_t next_up(Type t, std::uint64_t bits);
std::uint64_t next_down(Type t, std::uint64_t bits);

}  // namespace vyre::conform
