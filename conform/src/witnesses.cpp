#include "vyre/conform/witnesses.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <numbers>

#include "float_format.hpp"
#include "vyre/conform/compare.hpp"

namespace vyre::conform {
namespace {

using detail::float_layout;
using detail::FloatLayout;
using detail::width_mask;

// ---- integer tables --------------------------------------------------------------------------------

std::vector<Witness> integer_table(Type t) {
  const std::uint32_t width = bit_width(t);
  const std::uint64_t mask = width_mask(t);
  const std::uint64_t sign = std::uint64_t{1} << (width - 1);
  const bool is_signed = is_signed_int(t);
  const std::uint64_t max = is_signed ? sign - 1 : mask;
  const std::uint64_t min = is_signed ? sign : 0;
  const std::uint64_t alternating_01 = 0x5555555555555555ull & mask;
  std::vector<Witness> table = {
      {"0", 0},
      {"1", 1},
      {"2", 2},
      {"max", max},
      {"max-1", max - 1},
      {"min", min},
      {"min+1", min + 1},
      {"-1", mask},
      {"-2", mask - 1},
      {"sign_bit", sign},
      {"sign_bit-1", sign - 1},
      {"sign_bit+1", sign + 1},
      {"alternating_01", alternating_01},
      {"alternating_10", ~alternating_01 & mask},
      {"low_half_ones", (std::uint64_t{1} << (width / 2)) - 1},
      {"high_half_ones", mask & ~((std::uint64_t{1} << (width / 2)) - 1)},
  };
  if (width >= 32) {
    // Boundaries of the narrow storage types and of 32-bit values inside 64-bit ones.
    table.push_back({"0x7f", 0x7F});
    table.push_back({"0x80", 0x80});
    table.push_back({"0xff", 0xFF});
    table.push_back({"0x100", 0x100});
    table.push_back({"0x8000", 0x8000});
    table.push_back({"0x10000", 0x10000});
  }
  if (width == 64) {
    table.push_back({"0x7fffffff", 0x7FFFFFFF});
    table.push_back({"0x80000000", 0x80000000});
    table.push_back({"0xffffffff", 0xFFFFFFFF});
    table.push_back({"0x100000000", 0x100000000});
  }
  return table;
}

// ---- float tables ----------------------------------------------------------------------------------

std::vector<Witness> float_table(Type t) {
  const FloatLayout f = float_layout(t);
  const std::uint64_t sign = f.sign_mask();
  const std::uint64_t one = float_bits(t, 1.0);
  const std::uint64_t max_normal = ((f.max_exponent_field() - 1) << f.mantissa_bits) | f.mantissa_mask();
  const std::uint64_t min_normal = std::uint64_t{1} << f.mantissa_bits;
  return {
      {"+0", 0},
      {"-0", sign},
      {"+inf", f.inf_bits()},
      {"-inf", sign | f.inf_bits()},
      {"nan", f.quiet_nan_bits()},
      {"-nan", sign | f.quiet_nan_bits()},
      {"nan_payload", f.quiet_nan_bits() | 1},
      {"signalling_nan", f.inf_bits() | 1},
      {"min_subnormal", 1},
      {"-min_subnormal", sign | 1},
      {"max_subnormal", f.mantissa_mask()},
      {"-max_subnormal", sign | f.mantissa_mask()},
      {"min_normal", min_normal},
      {"-min_normal", sign | min_normal},
      {"max_normal", max_normal},
      {"-max_normal", sign | max_normal},
      {"1", one},
      {"-1", sign | one},
      {"1+ulp", one + 1},
      {"1-ulp", one - 1},
      {"2", float_bits(t, 2.0)},
      {"0.5", float_bits(t, 0.5)},
      {"-0.5", float_bits(t, -0.5)},
      {"1/3", float_bits(t, 1.0 / 3.0)},
      {"pi", float_bits(t, std::numbers::pi)},
      {"-pi", float_bits(t, -std::numbers::pi)},
      {"10", float_bits(t, 10.0)},
      {"-100.25", float_bits(t, -100.25)},
  };
}

std::vector<Witness> make_table(Type t) {
  if (t == Type::Bool) return {{"false", 0}, {"true", 1}};
  if (is_float(t)) return float_table(t);
  return integer_table(t);
}

// ---- branch points ---------------------------------------------------------------------------------

constexpr double kPi = std::numbers::pi;

std::vector<double> unary_float_points(UnOp op, Type t) {
  const bool f32 = t == Type::F32;
  switch (op) {
    case UnOp::Exp:
      return f32 ? std::vector<double>{88.72283935546875, -87.33654022216797, -103.97207641601562,
                                       1e-7, -1e-7, 20.0, -20.0}
                 : std::vector<double>{709.782712893384, -708.3964185322641, -745.1332191019411,
                                       1e-16, -1e-16, 20.0, -20.0};
    case UnOp::Exp2:
      return f32 ? std::vector<double>{128.0, 127.99999, -126.0, -149.0, -150.0, 1e-7, 0.25}
                 : std::vector<double>{1024.0, 1023.9999999, -1022.0, -1074.0, -1075.0, 1e-16, 0.25};
    case UnOp::Log:
    case UnOp::Log2:
      return {1.0, 2.0, 0.75, 1.5, std::numbers::e, 1e-30, 1e30, 1.0 / 1024.0, -1e-30};
    case UnOp::Sin:
    case UnOp::Cos:
    case UnOp::Tan:
      return {kPi / 4, kPi / 2, 3 * kPi / 4, 3 * kPi / 2, 2 * kPi, 100 * kPi, 1e3, 1e5, 1e10,
              1e20, 1e-4, -kPi / 2, 1e30};
    case UnOp::Asin:
    case UnOp::Acos:
      return {0.5, -0.5, 0.9999999, -0.9999999, 1.0000001, -1.0000001, 0.7071067811865476, 1e-8};
    case UnOp::Atan:
      return {1.0, -1.0, 1e10, -1e10, 1e-10, 0.4142135623730951, 2.414213562373095, 1e30};
    case UnOp::Sinh:
    case UnOp::Cosh:
      return f32 ? std::vector<double>{89.41598510742188, -89.41598510742188, 88.72283935546875,
                                       1e-5, -1e-5, 0.5, 10.0}
                 : std::vector<double>{710.4758600739439, -710.4758600739439, 709.782712893384,
                                       1e-9, -1e-9, 0.5, 10.0};
    case UnOp::Tanh:
      return f32 ? std::vector<double>{9.010913848876953, -9.010913848876953, 0.55, -0.55, 20.0,
                                       1e-5, 0.625}
                 : std::vector<double>{19.06154746539849, -19.06154746539849, 0.55, -0.55, 40.0,
                                       1e-9, 0.625};
    case UnOp::Floor:
    case UnOp::Ceil:
    case UnOp::Trunc:
    case UnOp::Round:
      return f32 ? std::vector<double>{1.5, -1.5, 2.5, -2.5, 0.49999997, -0.49999997, 8388607.5,
                                       8388608.0, 4194303.5, -8388607.5}
                 : std::vector<double>{1.5, -1.5, 2.5, -2.5, 0.49999999999999994, 4503599627370495.5,
                                       4503599627370496.0, 2251799813685247.5, -4503599627370495.5};
    case UnOp::Sqrt:
    case UnOp::InverseSqrt:
    case UnOp::Reciprocal:
      return {4.0, 0.25, 2.0, 1e-40, 1e38, 3.0};
    default:
      return {};
  }
}

// Float sources of a float->int cast: the saturation boundaries of every integer width.
std::vector<double> float_to_int_points() {
  return {0.9999999, -0.9999999, 1.5, -1.5, 2147483648.0, -2147483648.0, 2147483520.0,
          4294967296.0, 4294967040.0, 9223372036854775808.0, -9223372036854775808.0,
          18446744073709551616.0, 1e10, -1e10, 1e20, -1e20};
}

// Doubles whose rounding to f32 is a tie, an overflow or an underflow.
std::vector<double> f64_to_f32_points() {
  const double flt_max = 3.4028234663852886e38;
  return {flt_max,
          flt_max * (1.0 + std::ldexp(1.0, -25)),
          std::ldexp(1.0, 128) * (1.0 - std::ldexp(1.0, -25)),
          std::ldexp(1.0, -149),
          std::ldexp(1.0, -150),
          1.5 * std::ldexp(1.0, -150),
          1.0 + std::ldexp(1.0, -24),
          1.0 + 3 * std::ldexp(1.0, -24),
          std::ldexp(1.0, -126) - std::ldexp(1.0, -150),
          1e39,
          -1e39};
}

// f32 values whose rounding to f16 / bf16 is a tie, an overflow or an underflow.
std::vector<double> narrow_float_points(Type storage) {
  if (storage == Type::F16)
    return {65504.0, 65519.99609375, 65520.0, 65536.0, 1e5, -65520.0, std::ldexp(1.0, -24),
            std::ldexp(1.0, -25), 1.5 * std::ldexp(1.0, -25), std::ldexp(1.0, -14),
            std::ldexp(1.0, -14) - std::ldexp(1.0, -25), 1.0 + std::ldexp(1.0, -11),
            1.0 + 3 * std::ldexp(1.0, -11), 2049.0, 2051.0};
  return {1.0 + std::ldexp(1.0, -8), 1.0 + 3 * std::ldexp(1.0, -8), 3.3895313892515355e38,
          3.3961775292304693e38, std::ldexp(1.0, -133), std::ldexp(1.0, -134),
          1.5 * std::ldexp(1.0, -134), std::ldexp(1.0, -126), 257.0, 259.0};
}

// Integer values around the narrow integer storage types' ranges.
std::vector<std::uint64_t> narrow_int_points() {
  return {127, 128, 129, 255, 256, 257, 32767, 32768, 65535, 65536, 65537, 0x12345678,
          0xDEADBEEF, static_cast<std::uint32_t>(-128), static_cast<std::uint32_t>(-129),
          static_cast<std::uint32_t>(-32768), static_cast<std::uint32_t>(-32769)};
}

// Integers whose conversion to f32 or f64 is inexact (ties and near ties).
std::vector<std::uint64_t> int_to_float_points(Type from) {
  std::vector<std::uint64_t> v = {16777217, 16777219, 33554435, 0x7FFFFFBF, 0x7FFFFFC0};
  if (bit_width(from) == 32) {
    for (std::uint32_t x : {0xFFFFFF7Fu, 0xFFFFFF80u, 0xFFFFFF81u, static_cast<std::uint32_t>(-16777217),
                            static_cast<std::uint32_t>(-16777219)})
      v.push_back(x);
    return v;
  }
  const std::uint64_t wide[] = {(1ull << 53) + 1,      (1ull << 53) + 3,      0xFFFFFFFFFFFFFC00ull,
                                0xFFFFFFFFFFFFFBFFull,  0x7FFFFFFFFFFFFE00ull, 0xFFFFFF8000000000ull,
                                0x0000010000010000ull,  static_cast<std::uint64_t>(-(1ll << 53) - 1)};
  v.insert(v.end(), std::begin(wide), std::end(wide));
  return v;
}

std::vector<std::uint64_t> shift_amount_points(std::uint32_t width) {
  return {width - 1, width, width + 1, 2 * width - 1, 2 * width, 2 * width + 1, 31, 32, 33, 63, 64,
          65, 127, 0xFFFFFFE0};
}

// Each float point and its neighbours, in type `t`.
std::vector<std::uint64_t> float_points_bits(Type t, const std::vector<double>& points) {
  std::vector<std::uint64_t> out;
  for (double p : points) {
    const std::uint64_t b = float_bits(t, p);
    out.push_back(b);
    out.push_back(next_up(t, b));
    out.push_back(next_down(t, b));
  }
  return out;
}

std::vector<std::uint64_t> truncate_all(Type t, std::vector<std::uint64_t> values) {
  for (auto& v : values) v &= width_mask(t);
  return values;
}

std::vector<double> float_points(const OpInfo& op, std::size_t operand, Type operand_type) {
  switch (op.family) {
    case OpFamily::Un: return unary_float_points(op.un_op, operand_type);
    case OpFamily::Cast:
      if (is_int(op.type)) return float_to_int_points();
      if (op.from == Type::F64 && op.type == Type::F32) return f64_to_f32_points();
      return {};
    case OpFamily::Store:
      if (op.type == Type::F16 || op.type == Type::BF16) return narrow_float_points(op.type);
      return {};
    default: (void)operand; return {};
  }
}

std::vector<std::uint64_t> int_points(const OpInfo& op, std::size_t operand, Type operand_type) {
  switch (op.family) {
    case OpFamily::Bin:
      if (is_shift(op.bin_op) && operand == 1) return shift_amount_points(bit_width(op.type));
      return {};
    case OpFamily::Cast:
      if (is_float(op.type)) return int_to_float_points(operand_type);
      return {};
    case OpFamily::Store:
      if (is_int(op.type) && byte_size(op.type) < 4) return narrow_int_points();
      return {};
    case OpFamily::Subgroup:
      if (op.subgroup == SubgroupKind::Shuffle && operand == 1) return {0, 31, 32, 33, 63, 64};
      return {};
    default: return {};
  }
}

// ---- random ----------------------------------------------------------------------------------------

std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::uint64_t moderate_float(Type t, std::uint64_t h) {
  const FloatLayout f = float_layout(t);
  const std::uint64_t sign = (h >> 63) ? f.sign_mask() : 0;
  const std::int64_t exponent = static_cast<std::int64_t>((h >> 40) % 17) - 8;  // [-8, 8]
  const std::uint64_t field = static_cast<std::uint64_t>(exponent + f.bias());
  return sign | (field << f.mantissa_bits) | (h & f.mantissa_mask());
}

std::uint64_t moderate_int(Type t, std::uint64_t h) {
  if (is_signed_int(t)) return static_cast<std::uint64_t>(static_cast<std::int64_t>(h % 201) - 100) & width_mask(t);
  return (h % 300) & width_mask(t);
}

}  // namespace

const std::vector<Witness>& witness_table(Type t) {
  static const auto tables = [] {
    std::array<std::vector<Witness>, kTypeCount> all;
    for (Type s : kStorageTypes) all[static_cast<std::size_t>(s)] = make_table(s);
    return all;
  }();
  return tables.at(static_cast<std::size_t>(t));
}

std::vector<std::uint64_t> witness_values(Type t) {
  std::vector<std::uint64_t> out;
  for (const Witness& w : witness_table(t))
    if (std::find(out.begin(), out.end(), w.bits) == out.end()) out.push_back(w.bits);
  return out;
}

std::vector<std::uint64_t> branch_points(const OpInfo& op, std::size_t operand, Type operand_type) {
  if (is_float(operand_type))
    return float_points_bits(operand_type, float_points(op, operand, operand_type));
  if (is_int(operand_type)) return truncate_all(operand_type, int_points(op, operand, operand_type));
  return {};
}

std::vector<std::uint64_t> op_witnesses(const OpInfo& op, std::size_t operand, Type operand_type) {
  std::vector<std::uint64_t> out = witness_values(operand_type);
  for (std::uint64_t v : branch_points(op, operand, operand_type))
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  return out;
}

std::uint64_t random_value(Type t, std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  const std::uint64_t h = mix(seed ^ mix(stream ^ mix(index)));
  if (t == Type::Bool) return h >> 63;
  const bool raw = (index & 1) == 0;
  if (raw) return h & width_mask(t);
  return is_float(t) ? moderate_float(t, h) : moderate_int(t, h);
}

std::uint64_t canonical_nan(Type t) { return float_layout(t).quiet_nan_bits(); }

std::uint64_t float_bits(Type t, double value) {
  if (t == Type::F64) return std::bit_cast<std::uint64_t>(value);
  if (t == Type::F32) return std::bit_cast<std::uint32_t>(static_cast<float>(value));
  const FloatLayout f = float_layout(t);
  const std::uint64_t sign = std::signbit(value) ? f.sign_mask() : 0;
  if (std::isnan(value)) return f.quiet_nan_bits();
  const double magnitude = std::fabs(value);
  if (std::isinf(magnitude)) return sign | f.inf_bits();
  if (magnitude == 0) return sign;
  int e = 0;
  std::frexp(magnitude, &e);
  const int min_exponent = 1 - f.bias();
  int quantum = std::max(e - 1, min_exponent) - static_cast<int>(f.mantissa_bits);
  auto significand = static_cast<std::uint64_t>(std::nearbyint(std::ldexp(magnitude, -quantum)));
  if (significand >> (f.mantissa_bits + 1)) {
    significand >>= 1;
    ++quantum;
  }
  if (significand < (std::uint64_t{1} << f.mantissa_bits)) return sign | significand;  // subnormal
  const std::int64_t field = quantum + static_cast<int>(f.mantissa_bits) + f.bias();
  if (field >= static_cast<std::int64_t>(f.max_exponent_field())) return sign | f.inf_bits();
  return sign | (static_cast<std::uint64_t>(field) << f.mantissa_bits) | (significand & f.mantissa_mask());
}

namespace {
std::uint64_t from_ordered(Type t, std::int64_t ordered) {
  const FloatLayout f = float_layout(t);
  if (ordered >= 0) return static_cast<std::uint64_t>(ordered);
  return f.sign_mask() | static_cast<std::uint64_t>(-ordered);
}

std::uint64_t step(Type t, std::uint64_t bits, std::int64_t delta) {
  const FloatLayout f = float_layout(t);
  if (is_nan_bits(t, bits)) return bits;
  const std::int64_t ordered = ordered_bits(t, bits);
  const auto inf = static_cast<std::int64_t>(f.inf_bits());
  const std::int64_t moved = std::clamp(ordered + delta, -inf, inf);
  return from_ordered(t, moved);
}
}  // namespace

std::uint64_t next_up(Type t, std::uint64_t bits) { return step(t, bits, 1); }
std::uint64_t next_down(Type t, std::uint64_t bits) { return step(t, bits, -1); }

}  // namespace vyre::conform
