// The seeded division and square root of plugins/shared/math/algorithms/seeded_div_sqrt.hpp (what
// the Vulkan plugin emits on a device with OpFmaKHR), evaluated by the CPU twin, agree bit for bit
// with the host's IEEE division and square root, whatever seed within the documented bound the
// backend gives: seeds are perturbed by a deterministic pseudo-random relative error up to 2^-14
// (f32) / 2^-16 (f64), the bound, and up to 2^-21, what Vulkan's OpFDiv / InverseSqrt give.
//   f32 sqrt: every float in [1, 4) (every significand with both exponent parities: the method is
//   the same at every exponent, the scaling exact), then random operands of every class.
//   f32 reciprocal: every float in [1, 2).
//   f32/f64 div, f64 sqrt: random bit patterns, random significands at every exponent difference
//   (near the edges of the fast path's range too), operands built to put the result next to a
//   rounding midpoint, and the witness values crossed.
// Also checks that the fast path, not the fallback, answers normal operands, and runs the f32
// sweeps and random cases again over the wide f32 fma (wide_fma.hpp, f32 fma computed in f64: what
// the plugin uses on a device without a fused f32 fma), whose own fallback must never be needed
// there (the plugin calls it without: wide::fma_normal).
// VYRE_TEST_SEEDED_CASES sets the random cases per kind (default 1000000).
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "float_bits.hpp"
#include "math/algorithms/exact.hpp"
#include "math/algorithms/seeded_div_sqrt.hpp"
#include "math/algorithms/wide_fma.hpp"
#include "math/cpu_backend.hpp"

namespace {

using vyre::test::hex;
using vyre::test::same;
using vyre::test::UInt;

using vyre::math::CpuBackend;
using vyre::math::P32;
using vyre::math::P64;

std::uint64_t random_cases() {
  const char* v = std::getenv("VYRE_TEST_SEEDED_CASES");
  return v != nullptr ? std::strtoull(v, nullptr, 10) : 1000000;
}

std::uint64_t mix(std::uint64_t z) {  // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The CPU twin plus the seeds: the correctly rounded value times (1 + e), e a function of the
// operand's bits with |e| <= 2^-level (a quarter of the operands at the bound exactly). f64 seeds
// pass through f32, as the Vulkan backend computes them.
struct SeededCpu : CpuBackend {
  int level = 21;
  // f32 fma as the Vulkan plugin's wide fma (wide_fma.hpp) with its fallback counted: the plugin
  // calls it without the fallback (fma_normal) inside the seeded f32 div/sqrt, so it must never be
  // needed there.
  bool wide_fma = false;
  std::uint64_t wide_fallbacks = 0;
  using CpuBackend::fma;
  F32 fma(F32 a, F32 b, F32 c) {
    if (!wide_fma) return CpuBackend::fma(a, b, c);
    return vyre::math::wide::fma(*this, a, b, c, [&](F32 x, F32 y, F32 z) {
      ++wide_fallbacks;
      return vyre::math::exact::fma<P32>(*this, x, y, z);
    });
  }
  static F64 fconvert(F32 a) { return {static_cast<double>(a.v)}; }
  static F32 fconvert(F64 a) { return {static_cast<float>(a.v)}; }
  double perturb(std::uint64_t bits) const {
    const std::uint64_t h = mix(bits ^ static_cast<std::uint64_t>(level));
    const double unit = (h & 3) == 0 ? ((h & 4) ? 1.0 : -1.0) : static_cast<double>(h >> 11) * 0x1p-52 - 1.0;
    return 1.0 + std::ldexp(unit, -level);
  }
  F32 approx_recip(F32 a) const { return {static_cast<float>((1.0 / a.v) * perturb(std::bit_cast<std::uint32_t>(a.v)))}; }
  F64 approx_recip(F64 a) const {
    return {static_cast<double>(static_cast<float>((1.0 / a.v) * perturb(std::bit_cast<std::uint64_t>(a.v))))};
  }
  F32 approx_rsqrt(F32 a) const {
    return {static_cast<float>((1.0 / std::sqrt(static_cast<double>(a.v))) * perturb(std::bit_cast<std::uint32_t>(a.v)))};
  }
  F64 approx_rsqrt(F64 a) const {
    return {static_cast<double>(static_cast<float>((1.0 / std::sqrt(a.v)) * perturb(std::bit_cast<std::uint64_t>(a.v))))};
  }
};

template <class T>
using Prec = std::conditional_t<sizeof(T) == 4, P32, P64>;
template <class T>
using F = std::conditional_t<sizeof(T) == 4, CpuBackend::F32, CpuBackend::F64>;

// The seeds' bound for each precision (seeded_div_sqrt.hpp), and the realistic level.
template <class T>
constexpr int kBoundLevel = sizeof(T) == 4 ? 14 : 16;
constexpr int kDeviceLevel = 21;

template <class T>
struct Ops {
  SeededCpu cpu;
  std::uint64_t fallbacks = 0;
  explicit Ops(int level, bool wide_fma = false) {
    cpu.level = level;
    cpu.wide_fma = wide_fma;
  }
  T div(T a, T b) {
    return vyre::math::seeded::div<Prec<T>>(cpu, F<T>{a}, F<T>{b}, [&](F<T> x, F<T> y) {
             ++fallbacks;
             return vyre::math::exact::div<Prec<T>>(cpu, x, y);
           }).v;
  }
  T sqrt(T a) {
    return vyre::math::seeded::sqrt<Prec<T>>(cpu, F<T>{a}, [&](F<T> x) {
             ++fallbacks;
             return vyre::math::exact::sqrt<Prec<T>>(cpu, x);
           }).v;
  }
};

// Counts mismatches; the first few become failures with their operands.
struct Report {
  std::uint64_t failures = 0, checked = 0;
  template <class T>
  void operator()(const char* op, int level, T a, T b, T expected, T actual) {
    ++checked;
    if (same(expected, actual) || ++failures > 5) return;
    FAIL_CHECK(std::string(op) << "(" << hex(a) << ", " << hex(b) << ") = " << hex(actual) << ", expected " << hex(expected)
                  << " (seed error 2^-" << level << ")");
  }
};

template <class T>
std::vector<T> witnesses() {
  using L = std::numeric_limits<T>;
  const int bias = L::max_exponent - 1;
  std::vector<T> w = {T(0), L::denorm_min(), L::min() - L::denorm_min(), L::min(), L::min() * T(1.5), T(1),
                      std::nextafter(T(1), T(2)), std::nextafter(T(1), T(0)), T(2), std::nextafter(T(2), T(0)),
                      T(3), T(0.1), T(1) / T(3), T(10), L::max(), std::nextafter(L::max(), T(0)),
                      std::sqrt(L::max()), std::sqrt(L::min()), L::infinity(), L::quiet_NaN(),
                      std::ldexp(T(1), bias - 1), std::ldexp(T(1.5), bias - 2), std::ldexp(T(1), 1 - bias),
                      std::ldexp(T(1.75), 2 - bias), std::ldexp(T(1), 3 - bias)};
  const std::size_t n = w.size();
  for (std::size_t i = 0; i < n; ++i) w.push_back(-w[i]);
  return w;
}

// A float with a random significand and exponent 2^e (e unbiased, normal range).
template <class T>
T with_exponent(std::mt19937_64& rng, int e) {
  const UInt<T> mant = static_cast<UInt<T>>(rng()) & ((UInt<T>{1} << (std::numeric_limits<T>::digits - 1)) - 1);
  const T m = std::bit_cast<T>(static_cast<UInt<T>>(std::bit_cast<UInt<T>>(T(1)) | mant));
  return std::ldexp(m, e);
}

// Division: random bit patterns, random significands at every exponent difference, and quotients
// next to a midpoint (x = y * (q + half an ULP) rounded: x / y is within about an ULP of x of it).
template <class T>
void check_div(int level, Report& report, std::uint64_t n, bool wide_fma = false) {
  using Wide = long double;  // 64-bit significand: near-midpoint operands for both precisions
  Ops<T> o(level, wide_fma);
  const int bias = std::numeric_limits<T>::max_exponent - 1;
  for (T a : witnesses<T>())
    for (T b : witnesses<T>()) report("div", level, a, b, a / b, o.div(a, b));
  std::mt19937_64 rng(0x5eed + level + sizeof(T));
  for (std::uint64_t i = 0; i < n; ++i) {
    T a, b;
    switch (i % 4) {
      case 0:
        a = std::bit_cast<T>(static_cast<UInt<T>>(rng()));
        b = std::bit_cast<T>(static_cast<UInt<T>>(rng()));
        break;
      case 1: {  // exponent differences across the whole range, the fast path's edges included
        const int ea = static_cast<int>(rng() % static_cast<std::uint64_t>(2 * bias - 1)) - (bias - 1);
        const int eb = static_cast<int>(rng() % static_cast<std::uint64_t>(2 * bias - 1)) - (bias - 1);
        a = with_exponent<T>(rng, ea);
        b = with_exponent<T>(rng, eb);
        break;
      }
      case 2: {  // near a midpoint
        b = with_exponent<T>(rng, static_cast<int>(rng() % 16) - 8);
        const T q = with_exponent<T>(rng, static_cast<int>(rng() % 16) - 8);
        const Wide mid = static_cast<Wide>(q) + static_cast<Wide>(std::nextafter(q, T(4 * q)) - q) / 2;
        a = static_cast<T>(mid * static_cast<Wide>(b));
        break;
      }
      default:  // moderate magnitudes, both signs
        a = with_exponent<T>(rng, static_cast<int>(rng() % 40) - 20) * ((rng() & 1) ? T(1) : T(-1));
        b = with_exponent<T>(rng, static_cast<int>(rng() % 40) - 20) * ((rng() & 1) ? T(1) : T(-1));
        break;
    }
    report("div", level, a, b, a / b, o.div(a, b));
  }
  // Normal operands with a normal quotient take the fast path (the fallback is for the rest).
  const std::uint64_t before = o.fallbacks;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const T a = with_exponent<T>(rng, static_cast<int>(rng() % 121) - 60);
    const T b = with_exponent<T>(rng, static_cast<int>(rng() % 20) - 10);
    report("div", level, a, b, a / b, o.div(a, b));
  }
  CHECK(o.fallbacks == before);
  CHECK(o.cpu.wide_fallbacks == 0);
}

// Square root: random bit patterns (every class), random significands at every exponent, roots
// next to a midpoint (x = (s + half an ULP)^2 rounded).
template <class T>
void check_sqrt(int level, Report& report, std::uint64_t n, bool wide_fma = false) {
  using Wide = long double;
  Ops<T> o(level, wide_fma);
  const int bias = std::numeric_limits<T>::max_exponent - 1;
  for (T a : witnesses<T>()) report("sqrt", level, a, T(0), std::sqrt(a), o.sqrt(a));
  std::mt19937_64 rng(0x5eed + 7 * level + sizeof(T));
  for (std::uint64_t i = 0; i < n; ++i) {
    T a;
    switch (i % 3) {
      case 0: a = std::bit_cast<T>(static_cast<UInt<T>>(rng())); break;
      case 1: a = with_exponent<T>(rng, static_cast<int>(rng() % static_cast<std::uint64_t>(2 * bias - 1)) - (bias - 1)); break;
      default: {
        const T s = with_exponent<T>(rng, static_cast<int>(rng() % 16) - 8);
        const Wide mid = static_cast<Wide>(s) + static_cast<Wide>(std::nextafter(s, T(4 * s)) - s) / 2;
        a = static_cast<T>(mid * mid);
        break;
      }
    }
    report("sqrt", level, a, T(0), std::sqrt(a), o.sqrt(a));
  }
  const std::uint64_t before = o.fallbacks;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const T a = with_exponent<T>(rng, static_cast<int>(rng() % static_cast<std::uint64_t>(2 * bias - 1)) - (bias - 1));
    report("sqrt", level, a, T(0), std::sqrt(a), o.sqrt(a));
  }
  CHECK(o.fallbacks == before);
  CHECK(o.cpu.wide_fallbacks == 0);
}

// The sweeps below take every float in Release; under the sanitizers (CI's slow pass, ~20x slower)
// every third one, since the Release run of the same CI sweeps them all.
// The sweeps over the wide fma (opt-in on Vulkan) take every eleventh float there.
#if defined(__SANITIZE_ADDRESS__)
constexpr std::uint32_t kSweepStep = 3;
constexpr std::uint32_t kWideSweepStep = 11;
#else
constexpr std::uint32_t kSweepStep = 1;
constexpr std::uint32_t kWideSweepStep = 1;
#endif

}  // namespace

TEST_CASE("seeded f32 sqrt: every float in [1, 4), at the seed bound and at the device's seed error") {
  Report report;
  for (int level : {kBoundLevel<float>, kDeviceLevel}) {
    Ops<float> o(level);
    for (std::uint32_t bits = std::bit_cast<std::uint32_t>(1.0f); bits < std::bit_cast<std::uint32_t>(4.0f);
         bits += kSweepStep) {
      const float a = std::bit_cast<float>(bits);
      report("sqrt", level, a, 0.0f, std::sqrt(a), o.sqrt(a));
    }
    CHECK(o.fallbacks == 0);
  }
  CHECK(report.checked == 2u * (((1u << 24) + kSweepStep - 1) / kSweepStep));
  CHECK(report.failures == 0);
}

TEST_CASE("seeded f32 reciprocal: every float in [1, 2)") {
  Report report;
  for (int level : {kBoundLevel<float>, kDeviceLevel}) {
    Ops<float> o(level);
    for (std::uint32_t bits = std::bit_cast<std::uint32_t>(1.0f); bits < std::bit_cast<std::uint32_t>(2.0f);
         bits += kSweepStep) {
      const float a = std::bit_cast<float>(bits);
      report("div", level, 1.0f, a, 1.0f / a, o.div(1.0f, a));
    }
    CHECK(o.fallbacks == 0);
  }
  CHECK(report.failures == 0);
}

TEST_CASE("seeded f32 div and sqrt: random, every exponent difference, near midpoints, witnesses") {
  Report report;
  for (int level : {kBoundLevel<float>, kDeviceLevel}) {
    check_div<float>(level, report, random_cases());
    check_sqrt<float>(level, report, random_cases());
  }
  MESSAGE(report.checked << " f32 operations checked");
  CHECK(report.failures == 0);
}

TEST_CASE("seeded f64 div and sqrt: random, every exponent difference, near midpoints, witnesses") {
  Report report;
  for (int level : {kBoundLevel<double>, kDeviceLevel}) {
    check_div<double>(level, report, random_cases());
    check_sqrt<double>(level, report, random_cases());
  }
  MESSAGE(report.checked << " f64 operations checked");
  CHECK(report.failures == 0);
}

TEST_CASE("over the wide f32 fma, seeded f32 div/sqrt never need its fallback, and stay exact") {
  // What the Vulkan plugin emits where f32 fma is wide (FmaSource::Wide): the seeded f32 algorithms
  // call wide::fma_normal, which is wide::fma without the fallback; that is right only if the
  // fallback is never needed, whatever the operands (hard ones included: the seeded algorithms
  // compute on scaled operands and take their own fallback afterwards).
  Report report;
  std::uint64_t swept = 0;
  {
    Ops<float> o(kDeviceLevel, true);
    for (std::uint32_t bits = std::bit_cast<std::uint32_t>(1.0f); bits < std::bit_cast<std::uint32_t>(4.0f);
         bits += kWideSweepStep) {
      const float a = std::bit_cast<float>(bits);
      report("sqrt", kDeviceLevel, a, 0.0f, std::sqrt(a), o.sqrt(a));
    }
    for (std::uint32_t bits = std::bit_cast<std::uint32_t>(1.0f); bits < std::bit_cast<std::uint32_t>(2.0f);
         bits += kWideSweepStep) {
      const float a = std::bit_cast<float>(bits);
      report("div", kDeviceLevel, 1.0f, a, 1.0f / a, o.div(1.0f, a));
    }
    CHECK(o.cpu.wide_fallbacks == 0);
    swept = report.checked;
  }
  for (int level : {kBoundLevel<float>, kDeviceLevel}) {
    check_div<float>(level, report, random_cases(), true);
    check_sqrt<float>(level, report, random_cases(), true);
  }
  MESSAGE(report.checked << " f32 operations checked (" << swept << " in the sweeps)");
  CHECK(report.failures == 0);
}

TEST_CASE("a seed beyond the bound is caught: the tests can fail") {
  // With seeds off by 2^-6 the one correction step is not enough for every operand.
  Report report;
  Ops<float> o(6);
  std::uint64_t wrong = 0;
  for (std::uint32_t bits = std::bit_cast<std::uint32_t>(1.0f); bits < std::bit_cast<std::uint32_t>(2.0f); bits += 7) {
    const float a = std::bit_cast<float>(bits);
    const float x = 1.0f + static_cast<float>(bits % 1000) / 1000.0f;
    if (!same(x / a, o.div(x, a))) ++wrong;
  }
  CHECK(wrong > 0);
}
