// The exact division, square root and fma of plugins/shared/math/algorithms/exact.hpp, evaluated by
// the CPU twin (the same instruction sequence the Vulkan plugin emits as SPIR-V), agree bit for bit
// with the host's IEEE operations: on witness values crossed (zeros, subnormals, normals at the
// edges, infinities, NaN, near-ties) and on random bit patterns and random cancellations.
// VYRE_TEST_EXACT_CASES sets the random cases per op (default 200000).
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <limits>
#include <random>
#include <vector>

#include "float_bits.hpp"
#include "math/algorithms/exact.hpp"
#include "math/cpu_backend.hpp"

namespace {

using vyre::test::hex;
using vyre::test::same;
using vyre::test::UInt;

using vyre::math::CpuBackend;
using vyre::math::P32;
using vyre::math::P64;

std::uint64_t random_cases() {
  const char* v = std::getenv("VYRE_TEST_EXACT_CASES");
  return v != nullptr ? std::strtoull(v, nullptr, 10) : 200000;
}

template <class T>
std::vector<T> witnesses() {
  using L = std::numeric_limits<T>;
  std::vector<T> w = {T(0), L::denorm_min(), L::denorm_min() * 3, L::min() - L::denorm_min(), L::min(),
                      L::min() * T(1.5), T(1), std::nextafter(T(1), T(2)), std::nextafter(T(1), T(0)), T(2),
                      T(3), T(0.1), T(1) / T(3), T(10), L::max(), std::nextafter(L::max(), T(0)),
                      std::sqrt(L::max()), std::sqrt(L::min()), L::infinity(), L::quiet_NaN(),
                      std::ldexp(T(1), L::max_exponent - 2), std::ldexp(T(1), L::min_exponent - 3)};
  const std::size_t n = w.size();
  for (std::size_t i = 0; i < n; ++i) w.push_back(-w[i]);
  return w;
}

template <class T>
T random_value(std::mt19937_64& rng) {
  const std::uint64_t bits = rng();
  switch (rng() % 4) {
    case 0: return std::bit_cast<T>(static_cast<UInt<T>>(bits));  // any class
    case 1: {  // moderate magnitudes
      const T m = std::bit_cast<T>(static_cast<UInt<T>>(bits));
      int exponent = 0;
      return std::isfinite(m) ? std::ldexp(std::frexp(m, &exponent), static_cast<int>(rng() % 40) - 20) : T(1);
    }
    case 2: return std::ldexp(T(1) + T(rng() % 1024) / T(1024), static_cast<int>(rng() % 8) - 4);  // ties
    default: {  // subnormal range
      const UInt<T> mant = static_cast<UInt<T>>(bits) & ((UInt<T>{1} << (std::numeric_limits<T>::digits - 1)) - 1);
      return std::bit_cast<T>(mant) * ((rng() & 1) ? T(1) : T(-1));
    }
  }
}

template <class T, class P>
struct Ops {
  using F = std::conditional_t<sizeof(T) == 4, CpuBackend::F32, CpuBackend::F64>;
  static T div(T a, T b) {
    CpuBackend cpu;
    return vyre::math::exact::div<P>(cpu, F{a}, F{b}).v;
  }
  static T sqrt(T a) {
    CpuBackend cpu;
    return vyre::math::exact::sqrt<P>(cpu, F{a}).v;
  }
  static T fma(T a, T b, T c) {
    CpuBackend cpu;
    return vyre::math::exact::fma<P>(cpu, F{a}, F{b}, F{c}).v;
  }
};

template <class T, class P>
void check_all() {
  using O = Ops<T, P>;
  const auto w = witnesses<T>();
  std::size_t failures = 0;
  auto report = [&](const char* op, T a, T b, T c, T expected, T actual) {
    if (same(expected, actual) || ++failures > 5) return;
    FAIL_CHECK(std::string(op) << "(" << hex(a) << ", " << hex(b) << ", " << hex(c) << ") = " << hex(actual)
                               << ", expected " << hex(expected));
  };
  for (T a : w) {
    report("sqrt", a, 0, 0, std::sqrt(a), O::sqrt(a));
    for (T b : w) {
      report("div", a, b, 0, a / b, O::div(a, b));
      for (T c : w) report("fma", a, b, c, std::fma(a, b, c), O::fma(a, b, c));
    }
  }
  std::mt19937_64 rng(sizeof(T));
  const std::uint64_t n = random_cases();
  for (std::uint64_t i = 0; i < n; ++i) {
    const T a = random_value<T>(rng), b = random_value<T>(rng);
    T c = random_value<T>(rng);
    if (i % 3 == 0) c = -(a * b);  // cancellation: the exact product's rounding error survives
    report("sqrt", a, 0, 0, std::sqrt(a), O::sqrt(a));
    report("sqrt", std::fabs(a), 0, 0, std::sqrt(std::fabs(a)), O::sqrt(std::fabs(a)));
    report("div", a, b, 0, a / b, O::div(a, b));
    report("fma", a, b, c, std::fma(a, b, c), O::fma(a, b, c));
  }
  CHECK(failures == 0);
}

}  // namespace

TEST_CASE("exact f32 div, sqrt and fma match IEEE") { check_all<float, P32>(); }
TEST_CASE("exact f64 div, sqrt and fma match IEEE") { check_all<double, P64>(); }
