#include "reference.hpp"

#include <quadmath.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>

namespace vyre::cuda::math_test {
namespace {

using Quad = __float128;

Quad quad_eval(vyre::UnOp op, Quad x) {
  switch (op) {
    case vyre::UnOp::Exp: return expq(x);
    case vyre::UnOp::Exp2: return exp2q(x);
    case vyre::UnOp::Log: return logq(x);
    case vyre::UnOp::Log2: return log2q(x);
    case vyre::UnOp::Sin: return sinq(x);
    case vyre::UnOp::Cos: return cosq(x);
    case vyre::UnOp::Tan: return tanq(x);
    case vyre::UnOp::Asin: return asinq(x);
    case vyre::UnOp::Acos: return acosq(x);
    case vyre::UnOp::Atan: return atanq(x);
    case vyre::UnOp::Sinh: return sinhq(x);
    case vyre::UnOp::Cosh: return coshq(x);
    case vyre::UnOp::Tanh: return tanhq(x);
    case vyre::UnOp::InverseSqrt: return 1 / sqrtq(x);
    default: return nanq("");
  }
}

double double_eval(vyre::UnOp op, double x) {
  switch (op) {
    case vyre::UnOp::Exp: return std::exp(x);
    case vyre::UnOp::Exp2: return std::exp2(x);
    case vyre::UnOp::Log: return std::log(x);
    case vyre::UnOp::Log2: return std::log2(x);
    case vyre::UnOp::Sin: return std::sin(x);
    case vyre::UnOp::Cos: return std::cos(x);
    case vyre::UnOp::Tan: return std::tan(x);
    case vyre::UnOp::Asin: return std::asin(x);
    case vyre::UnOp::Acos: return std::acos(x);
    case vyre::UnOp::Atan: return std::atan(x);
    case vyre::UnOp::Sinh: return std::sinh(x);
    case vyre::UnOp::Cosh: return std::cosh(x);
    case vyre::UnOp::Tanh: return std::tanh(x);
    case vyre::UnOp::InverseSqrt: return 1.0 / std::sqrt(x);
    default: return std::numeric_limits<double>::quiet_NaN();
  }
}

// Is d within a few double ulps of a point where rounding to f32 changes (a midpoint between two
// floats, including the overflow threshold)?
bool near_f32_boundary(double d) {
  if (!std::isfinite(d)) return false;
  const float f = static_cast<float>(d);
  const double slack = 16 * (std::nextafter(std::fabs(d), INFINITY) - std::fabs(d));
  const double max_mid = 0x1.ffffffp+127;  // between FLT_MAX and 2^128
  if (std::fabs(std::fabs(d) - max_mid) <= slack) return true;
  if (std::isinf(f)) return false;
  const double down = std::nextafter(f, -INFINITY);
  const double up = std::nextafter(f, INFINITY);
  const double m1 = (static_cast<double>(f) + down) / 2;
  const double m2 = (static_cast<double>(f) + up) / 2;
  return std::fabs(d - m1) <= slack || std::fabs(d - m2) <= slack;
}

template <class U>
std::uint64_t ordered_distance(U a, U b, U sign) {
  auto order = [sign](U v) -> __int128 {
    return (v & sign) ? -static_cast<__int128>(v & ~sign) : static_cast<__int128>(v);
  };
  const __int128 d = order(a) - order(b);
  return static_cast<std::uint64_t>(d < 0 ? -d : d);
}

template <class T, class U>
std::uint64_t distance(T actual, T expected, U sign) {
  if (std::isnan(expected) || std::isnan(actual)) {
    return std::isnan(expected) && std::isnan(actual) ? 0 : kMismatch;
  }
  const bool exact_case = std::isinf(expected) || std::isinf(actual) || expected == 0 || actual == 0;
  const U a = std::bit_cast<U>(actual);
  const U e = std::bit_cast<U>(expected);
  if (exact_case) return a == e ? 0 : kMismatch;
  return ordered_distance(a, e, sign);
}

}  // namespace

float reference_f32(vyre::UnOp op, float x) {
  const double d = double_eval(op, static_cast<double>(x));
  if (!near_f32_boundary(d)) return static_cast<float>(d);
  // binary128 -> double is exact to 113 bits; rounding that double to f32 is then correct unless the
  // true value is within 2^-100 of the boundary, which no f32 input comes near.
  const Quad q = quad_eval(op, static_cast<Quad>(x));
  const double hi = static_cast<double>(q);
  const double lo = static_cast<double>(q - static_cast<Quad>(hi));
  const float f = static_cast<float>(hi);
  // hi may sit exactly on an f32 midpoint; lo then decides the direction.
  const double mid_up = (static_cast<double>(f) + static_cast<double>(std::nextafter(f, INFINITY))) / 2;
  const double mid_down = (static_cast<double>(f) + static_cast<double>(std::nextafter(f, -INFINITY))) / 2;
  // (float)hi rounded a tie to f, the even neighbour; lo says on which side the true value is.
  if (hi == mid_up && lo > 0) return std::nextafter(f, INFINITY);
  if (hi == mid_down && lo < 0) return std::nextafter(f, -INFINITY);
  return f;
}

double reference_f64(vyre::UnOp op, double x) {
  return static_cast<double>(quad_eval(op, static_cast<Quad>(x)));
}

std::uint32_t ulp_bound(vyre::UnOp op) {
  switch (op) {
    case vyre::UnOp::Exp:
    case vyre::UnOp::Exp2:
    case vyre::UnOp::Log:
    case vyre::UnOp::Log2:
    case vyre::UnOp::InverseSqrt: return 2;
    case vyre::UnOp::Tan:
    case vyre::UnOp::Atan: return 5;
    default: return 4;
  }
}

std::uint64_t ulp_distance(float actual, float expected) {
  return distance(actual, expected, std::uint32_t{0x80000000u});
}

std::uint64_t ulp_distance(double actual, double expected) {
  return distance(actual, expected, std::uint64_t{0x8000000000000000ull});
}

std::string function_label(vyre::UnOp op, bool f64) {
  return std::string(vyre::un_op_name(op)) + (f64 ? "_f64" : "_f32");
}

std::string describe(float x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g (0x%08x)", static_cast<double>(x), std::bit_cast<std::uint32_t>(x));
  return buf;
}

std::string describe(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g (0x%016llx)", x,
                static_cast<unsigned long long>(std::bit_cast<std::uint64_t>(x)));
  return buf;
}

}  // namespace vyre::cuda::math_test
