// Parsing and printing typed values.
#include "values.hpp"

#include <fmt/core.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "cli.hpp"

namespace vyre::cli {

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

template <class T>
void append(std::vector<std::byte>& out, T value) {
  const auto* p = reinterpret_cast<const std::byte*>(&value);
  out.insert(out.end(), p, p + sizeof value);
}

template <class T>
T load(std::span<const std::byte> bytes) {
  T value;
  std::memcpy(&value, bytes.data(), sizeof value);
  return value;
}

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = (h >> 15) & 1;
  const std::uint32_t exponent = (h >> 10) & 0x1f;
  const std::uint32_t mantissa = h & 0x3ff;
  float magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31)
    magnitude = mantissa ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400), static_cast<int>(exponent) - 25);
  return sign ? -magnitude : magnitude;
}

std::string format_float(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  return fmt::format("{}", value);
}

template <class T>
T parse_integer(std::string_view item) {
  // Accept the negative form for unsigned (wraps, like C) and 0x prefixes.
  bool negative = false;
  if (!item.empty() && item.front() == '-') {
    negative = true;
    item.remove_prefix(1);
  }
  int base = 10;
  if (item.starts_with("0x") || item.starts_with("0X")) {
    base = 16;
    item.remove_prefix(2);
  }
  std::uint64_t magnitude = 0;
  const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), magnitude, base);
  if (ec != std::errc() || end != item.data() + item.size() || item.empty())
    throw UsageError(fmt::format("'{}' is not an integer", item));
  // Signed types take [MIN, MAX]; unsigned ones [-MAX, MAX], negatives wrapping as in C.
  const std::uint64_t max = static_cast<std::uint64_t>(std::numeric_limits<T>::max());
  const std::uint64_t limit = negative && std::is_signed_v<T> ? max + 1 : max;
  if (magnitude > limit) throw UsageError(fmt::format("'{}' does not fit the element type", item));
  const std::uint64_t bits = negative ? 0 - magnitude : magnitude;
  return static_cast<T>(bits);
}

double parse_double(std::string_view item) {
  if (item == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (item == "inf") return std::numeric_limits<double>::infinity();
  if (item == "-inf") return -std::numeric_limits<double>::infinity();
  const std::string text(item);
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size())
    throw UsageError(fmt::format("'{}' is not a number", item));
  return value;
}

void append_value(std::vector<std::byte>& out, Type type, std::string_view item) {
  switch (type) {
    case Type::Bool:
      if (item == "true" || item == "1") return append<std::uint32_t>(out, 1);
      if (item == "false" || item == "0") return append<std::uint32_t>(out, 0);
      throw UsageError(fmt::format("'{}' is not a bool (true, false, 1, 0)", item));
    case Type::U8: return append(out, parse_integer<std::uint8_t>(item));
    case Type::U16: return append(out, parse_integer<std::uint16_t>(item));
    case Type::U32: return append(out, parse_integer<std::uint32_t>(item));
    case Type::U64: return append(out, parse_integer<std::uint64_t>(item));
    case Type::I8: return append(out, parse_integer<std::int8_t>(item));
    case Type::I16: return append(out, parse_integer<std::int16_t>(item));
    case Type::I32: return append(out, parse_integer<std::int32_t>(item));
    case Type::I64: return append(out, parse_integer<std::int64_t>(item));
    case Type::F32: return append(out, static_cast<float>(parse_double(item)));
    case Type::F64: return append(out, parse_double(item));
    case Type::F16:
    case Type::BF16:
      throw UsageError(fmt::format("values: is not supported for {} inputs; pass hex: or a file",
                                   type_name(type)));
  }
}

}  // namespace

std::vector<std::byte> parse_hex(std::string_view text) {
  std::vector<std::byte> out;
  int high = -1;
  for (char c : text) {
    if (c == ' ' || c == '_' || c == ',') continue;
    const int digit = hex_digit(c);
    if (digit < 0) throw UsageError(fmt::format("'{}' is not a hex digit", c));
    if (high < 0) {
      high = digit;
      continue;
    }
    out.push_back(static_cast<std::byte>(high * 16 + digit));
    high = -1;
  }
  if (high >= 0) throw UsageError("hex input has an odd number of digits");
  return out;
}

std::vector<std::byte> parse_values(Type type, std::string_view text) {
  std::vector<std::byte> out;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) append_value(out, type, item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

std::string format_value(Type type, std::span<const std::byte> bytes) {
  switch (type) {
    case Type::Bool: return load<std::uint32_t>(bytes) != 0 ? "true" : "false";
    case Type::U8: return fmt::format("{}", load<std::uint8_t>(bytes));
    case Type::U16: return fmt::format("{}", load<std::uint16_t>(bytes));
    case Type::U32: return fmt::format("{}", load<std::uint32_t>(bytes));
    case Type::U64: return fmt::format("{}", load<std::uint64_t>(bytes));
    case Type::I8: return fmt::format("{}", load<std::int8_t>(bytes));
    case Type::I16: return fmt::format("{}", load<std::int16_t>(bytes));
    case Type::I32: return fmt::format("{}", load<std::int32_t>(bytes));
    case Type::I64: return fmt::format("{}", load<std::int64_t>(bytes));
    case Type::F32: return format_float(load<float>(bytes));
    case Type::F64: return format_float(load<double>(bytes));
    case Type::F16: return format_float(half_to_float(load<std::uint16_t>(bytes)));
    case Type::BF16:
      return format_float(std::bit_cast<float>(std::uint32_t{load<std::uint16_t>(bytes)} << 16));
  }
  return "?";
}

std::string format_hex(std::span<const std::byte> bytes, std::size_t group) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i > 0 && group > 0 && i % group == 0) out += ' ';
    out += fmt::format("{:02x}", static_cast<unsigned>(bytes[i]));
  }
  return out;
}

namespace {

// splitmix64: a small, well-mixed generator whose output is the same on every platform.
std::uint64_t next_random(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Uniform in [-1, 1) with 24 random bits: exact in f32, f64, and representable after rounding
// to f16/bf16 (finite).
float random_unit_float(std::uint64_t& state) {
  return static_cast<float>(static_cast<std::int32_t>(next_random(state) >> 40) - (1 << 23)) /
         static_cast<float>(1 << 23);
}

// The upper half of an f32, rounded to nearest even (bf16), for finite inputs.
std::uint16_t float_to_bf16(float f) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  return static_cast<std::uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

}  // namespace

std::vector<std::byte> random_values(Type type, std::size_t count, std::uint64_t seed) {
  std::vector<std::byte> out;
  out.reserve(count * byte_size(type));
  std::uint64_t state = seed;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t r = next_random(state);
    switch (type) {
      case Type::Bool: append(out, static_cast<std::uint32_t>(r & 1)); break;
      case Type::U8:
      case Type::I8: append(out, static_cast<std::uint8_t>(r)); break;
      case Type::U16:
      case Type::I16: append(out, static_cast<std::uint16_t>(r)); break;
      case Type::U32:
      case Type::I32: append(out, static_cast<std::uint32_t>(r)); break;
      case Type::U64:
      case Type::I64: append(out, r); break;
      case Type::F32: append(out, random_unit_float(state)); break;
      case Type::F64: append(out, static_cast<double>(random_unit_float(state))); break;
      case Type::F16: append(out, static_cast<_Float16>(random_unit_float(state))); break;
      case Type::BF16: append(out, float_to_bf16(random_unit_float(state))); break;
    }
  }
  return out;
}

}  // namespace vyre::cli
