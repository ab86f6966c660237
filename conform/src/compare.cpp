#include "vyre/conform/compare.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "float_format.hpp"

namespace vyre::conform {
namespace {

using detail::float_layout;
using detail::FloatLayout;
using detail::width_mask;

std::string shortest_float(float v) {
  char buf[64];
  for (int precision = 6; precision <= 9; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, static_cast<double>(v));
    if (std::strtof(buf, nullptr) == v) return buf;
  }
  return buf;
}

std::string shortest_double(double v) {
  char buf[64];
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) return buf;
  }
  return buf;
}

std::string format_float(Type t, std::uint64_t bits) {
  const FloatLayout f = float_layout(t);
  const bool negative = (bits & f.sign_mask()) != 0;
  if (is_nan_bits(t, bits)) return negative ? "-nan" : "nan";
  if (is_inf_bits(t, bits)) return negative ? "-inf" : "inf";
  if (is_zero_bits(t, bits)) return negative ? "-0" : "0";
  if (t == Type::F64) return shortest_double(float_value(t, bits));
  return shortest_float(static_cast<float>(float_value(t, bits)));
}

std::int64_t sign_extend(std::uint64_t bits, std::uint32_t width) {
  if (width >= 64) return static_cast<std::int64_t>(bits);
  const std::uint64_t sign = std::uint64_t{1} << (width - 1);
  return static_cast<std::int64_t>((bits ^ sign) - sign);
}

}  // namespace

bool is_nan_bits(Type t, std::uint64_t bits) {
  if (!is_float(t)) return false;
  const FloatLayout f = float_layout(t);
  const std::uint64_t magnitude = bits & f.magnitude_mask();
  return magnitude > f.inf_bits();
}

bool is_inf_bits(Type t, std::uint64_t bits) {
  if (!is_float(t)) return false;
  const FloatLayout f = float_layout(t);
  return (bits & f.magnitude_mask()) == f.inf_bits();
}

bool is_zero_bits(Type t, std::uint64_t bits) {
  if (!is_float(t)) return (bits & width_mask(t)) == 0;
  return (bits & float_layout(t).magnitude_mask()) == 0;
}

std::int64_t ordered_bits(Type t, std::uint64_t bits) {
  const FloatLayout f = float_layout(t);
  const auto magnitude = static_cast<std::int64_t>(bits & f.magnitude_mask());
  return (bits & f.sign_mask()) ? -magnitude : magnitude;
}

std::uint64_t ulp_distance(Type t, std::uint64_t a, std::uint64_t b) {
  const bool a_nan = is_nan_bits(t, a);
  const bool b_nan = is_nan_bits(t, b);
  if (a_nan || b_nan) return a_nan && b_nan ? 0 : std::numeric_limits<std::uint64_t>::max();
  const std::int64_t oa = ordered_bits(t, a);
  const std::int64_t ob = ordered_bits(t, b);
  // Both lie within +-2^63 of zero, so the difference of magnitudes fits unsigned arithmetic.
  return oa >= ob ? static_cast<std::uint64_t>(oa) - static_cast<std::uint64_t>(ob)
                  : static_cast<std::uint64_t>(ob) - static_cast<std::uint64_t>(oa);
}

Verdict compare_value(Type t, Tolerance tolerance, std::uint64_t expected, std::uint64_t actual) {
  const std::uint64_t mask = width_mask(t);
  expected &= mask;
  actual &= mask;
  if (!is_float(t)) return {expected == actual, std::nullopt};
  const std::uint64_t distance = ulp_distance(t, expected, actual);
  if (expected == actual) return {true, 0};
  const bool special = is_nan_bits(t, expected) || is_nan_bits(t, actual) ||
                       is_inf_bits(t, expected) || is_inf_bits(t, actual) ||
                       is_zero_bits(t, expected) || is_zero_bits(t, actual);
  // NaN must be the canonical NaN on both sides, and infinities and zeros are exact, so every
  // special value needs equal bits; so does a zero tolerance and every f16/bf16 value.
  const bool narrow = t == Type::F16 || t == Type::BF16;
  if (special || narrow || tolerance.exact()) return {false, distance};
  return {distance <= tolerance.max_ulp, distance};
}

std::string format_typed(Type t, std::uint64_t bits) {
  bits &= width_mask(t);
  if (t == Type::Bool) return bits ? "true" : "false";
  if (is_float(t)) return format_float(t, bits);
  if (is_signed_int(t)) return std::to_string(sign_extend(bits, bit_width(t)));
  return std::to_string(bits);
}

std::string format_hex(Type t, std::uint64_t bits) {
  bits &= width_mask(t);
  const int digits = t == Type::Bool ? 1 : static_cast<int>(byte_size(t) * 2);
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llx", digits, static_cast<unsigned long long>(bits));
  return buf;
}

std::string format_value(Type t, std::uint64_t bits) {
  return std::string(type_name(t)) + " " + format_typed(t, bits) + " (" + format_hex(t, bits) + ")";
}

std::uint64_t read_element(Type t, const std::uint8_t* data) {
  std::uint64_t bits = 0;
  for (std::uint32_t i = 0; i < byte_size(t); ++i) bits |= std::uint64_t{data[i]} << (8 * i);
  return bits;
}

void write_element(Type t, std::uint64_t bits, std::uint8_t* data) {
  for (std::uint32_t i = 0; i < byte_size(t); ++i) data[i] = static_cast<std::uint8_t>(bits >> (8 * i));
}

double float_value(Type t, std::uint64_t bits) {
  if (t == Type::F64) return std::bit_cast<double>(bits);
  if (t == Type::F32) return std::bit_cast<float>(static_cast<std::uint32_t>(bits));
  const FloatLayout f = float_layout(t);
  const double sign = (bits & f.sign_mask()) ? -1.0 : 1.0;
  const std::uint64_t field = (bits >> f.mantissa_bits) & f.max_exponent_field();
  const std::uint64_t mantissa = bits & f.mantissa_mask();
  if (field == f.max_exponent_field())
    return mantissa ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
  const int m = static_cast<int>(f.mantissa_bits);
  if (field == 0) return sign * std::ldexp(static_cast<double>(mantissa), 1 - f.bias() - m);
  const double significand = static_cast<double>(mantissa | (std::uint64_t{1} << f.mantissa_bits));
  return sign * std::ldexp(significand, static_cast<int>(field) - f.bias() - m);
}

}  // namespace vyre::conform
