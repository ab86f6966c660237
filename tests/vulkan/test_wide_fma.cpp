// The f32 fma of plugins/shared/math/algorithms/wide_fma.hpp (computed in f64:
// what the Vulkan plugin emits for f32 fma on a device with f64 but no fused f32 fma, fma_source 3),
// evaluated by the CPU twin, agrees bit for bit with the host's std::fma:
//   random operand triples (every class of bit pattern, products and addends of nearby magnitudes,
//   cancellations, results near the subnormal range and the overflow boundary): 200 million in
//   Release (VYRE_TEST_WIDE_FMA_CASES sets the count), fewer under the sanitizers;
//   f32 rounding ties decided only by an addend far below the product's 53-bit precision (what the
//   midpoint fix-up is for), exact cancellations and signed zeros, subnormal results, the
//   overflow boundary, and every triple of special and edge values.
// Each is run twice: with the host's conversions, and with a backend whose f32 <-> f64 conversions
// give garbage for f32 subnormals (operand or result) and inf/NaN operands, as a device that flushes
// subnormals may: the
// algorithm sends those to the integer fallback, so the results must not change. Also checks that
// the fast path answers normal operands with normal results, and that a wrong conversion is caught.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "float_bits.hpp"
#include "math/algorithms/exact.hpp"
#include "math/algorithms/wide_fma.hpp"
#include "math/cpu_backend.hpp"

namespace {

using vyre::test::hex;
using vyre::test::same;

using vyre::math::CpuBackend;
using vyre::math::P32;

#if defined(__SANITIZE_ADDRESS__)
constexpr std::uint64_t kDefaultCases = 4000000;  // CI's slow pass; the Release run takes 200 million
#else
constexpr std::uint64_t kDefaultCases = 200000000;
#endif

std::uint64_t random_cases() {
  const char* v = std::getenv("VYRE_TEST_WIDE_FMA_CASES");
  return v != nullptr ? std::strtoull(v, nullptr, 10) : kDefaultCases;
}

bool f32_subnormal(float v) { return v != 0.0f && std::fabs(v) < std::numeric_limits<float>::min(); }

// The CPU twin plus the two conversions wide_fma.hpp asks of the backend. `hostile`: an f32
// subnormal, infinite or NaN operand widens to 1.0 and a result in the f32 subnormal range (or
// rounding to 0) narrows to NaN, values no device gives but that the algorithm must never use.
struct WideCpu : CpuBackend {
  bool hostile = false;
  bool truncating = false;  // f64 -> f32 rounds toward zero: a wrong backend the tests must catch
  F64 fconvert(F32 a) const {
    if (hostile && (f32_subnormal(a.v) || !std::isfinite(a.v))) return {1.0};
    return {static_cast<double>(a.v)};
  }
  F32 fconvert(F64 a) const {
    float r = static_cast<float>(a.v);
    if (truncating && std::isfinite(r) && std::fabs(static_cast<double>(r)) > std::fabs(a.v))
      r = std::nextafter(r, 0.0f);
    if (hostile && (f32_subnormal(r) || (a.v != 0.0 && r == 0.0f))) return {std::numeric_limits<float>::quiet_NaN()};
    return {r};
  }
};

struct Wide {
  WideCpu cpu;
  std::uint64_t fallbacks = 0;
  float operator()(float x, float y, float z) {
    using F = CpuBackend::F32;
    return vyre::math::wide::fma(cpu, F{x}, F{y}, F{z}, [&](F a, F b, F c) {
             ++fallbacks;
             return vyre::math::exact::fma<P32>(cpu, a, b, c);
           }).v;
  }
};

// Counts mismatches; the first few become failures with their operands.
struct Report {
  std::uint64_t failures = 0, checked = 0;
  void operator()(const char* what, float x, float y, float z, float expected, float actual) {
    ++checked;
    if (same(expected, actual) || ++failures > 5) return;
    FAIL_CHECK(what << ": fma(" << hex(x) << ", " << hex(y) << ", " << hex(z) << ") = " << hex(actual) << ", expected "
                    << hex(expected));
  }
};

// Both backends (host conversions, hostile conversions) on one triple.
struct Check {
  Wide plain, hostile;
  Report report;
  Check() { hostile.cpu.hostile = true; }
  void operator()(const char* what, float x, float y, float z) {
    const float expected = std::fma(x, y, z);
    report(what, x, y, z, expected, plain(x, y, z));
    report(what, x, y, z, expected, hostile(x, y, z));
  }
};

// A float with a random significand, exponent e (unbiased, normal range) and random sign.
float random_float(std::mt19937_64& rng, int e) {
  const std::uint32_t mant = static_cast<std::uint32_t>(rng()) & 0x007FFFFFu;
  const float m = std::bit_cast<float>(0x3F800000u | mant);
  return std::ldexp((rng() & 1) ? -m : m, e);
}

int uniform(std::mt19937_64& rng, int lo, int hi) { return lo + static_cast<int>(rng() % static_cast<std::uint64_t>(hi - lo + 1)); }

std::vector<float> edge_values() {
  using L = std::numeric_limits<float>;
  std::vector<float> w = {0.0f, L::denorm_min(), 2 * L::denorm_min(), L::min() - L::denorm_min(), L::min(),
                          L::min() * 1.5f, 0x1p-75f, 0x1p-63f, 1.0f, std::nextafter(1.0f, 2.0f),
                          std::nextafter(1.0f, 0.0f), 1.5f, 2.0f, 3.0f, 1.0f / 3.0f, 0.1f, 0x1p+63f, 0x1p+64f,
                          std::sqrt(L::max()), L::max(), std::nextafter(L::max(), 0.0f), 0x1p+103f,
                          L::infinity(), L::quiet_NaN()};
  const std::size_t n = w.size();
  for (std::size_t i = 0; i < n; ++i) w.push_back(-w[i]);
  return w;
}

}  // namespace

TEST_CASE("wide f32 fma: every triple of edge and special values") {
  Check check;
  const std::vector<float> w = edge_values();
  for (float x : w)
    for (float y : w)
      for (float z : w) check("edge", x, y, z);
  MESSAGE(check.report.checked << " results checked");
  CHECK(check.report.failures == 0);
}

TEST_CASE("wide f32 fma: ties and near-ties decided below the product's 53-bit precision") {
  // x = (1 + a 2^-12) 2^ex, y = (1 + b 2^-12) 2^ey with a, b odd: x y = (1 + (a + b) 2^-12 + a b 2^-24)
  // 2^(ex+ey), which has a bit at 2^-24 below its leading one: an f32 rounding tie (when below 2,
  // else a value with f32 bits plus a half). z = ±2^k (k far below the product: s == p, e == z) or
  // 0, or a nearby multiple of the tie's quantum: the tie is broken by z's sign alone, which only
  // the midpoint fix-up passes on to the final rounding.
  Check check;
  std::mt19937_64 rng(0x71e5);
  for (int i = 0; i < 2000000; ++i) {
    const int a = 2 * uniform(rng, 0, 2047) + 1, b = 2 * uniform(rng, 0, 2047) + 1;
    const int ex = uniform(rng, -60, 60), ey = uniform(rng, -60, 60);
    const float x = std::ldexp(1.0f + static_cast<float>(a) * 0x1p-12f, ex) * ((rng() & 1) ? -1.0f : 1.0f);
    const float y = std::ldexp(1.0f + static_cast<float>(b) * 0x1p-12f, ey) * ((rng() & 1) ? -1.0f : 1.0f);
    const int scale = ex + ey;
    float z;
    switch (i % 4) {
      case 0: z = 0.0f; break;
      case 1: z = std::ldexp(1.0f, scale - uniform(rng, 30, 120)); break;
      case 2: z = -std::ldexp(1.0f, scale - uniform(rng, 30, 120)); break;
      default: z = std::ldexp(static_cast<float>(uniform(rng, -8, 8)), scale - 24 - uniform(rng, 0, 2)); break;
    }
    if (!std::isfinite(z)) z = 0.0f;
    check("tie", x, y, z);
  }
  MESSAGE(check.report.checked << " results checked");
  CHECK(check.report.failures == 0);
}

TEST_CASE("wide f32 fma: cancellations, signed zeros, subnormal results, the overflow boundary") {
  using L = std::numeric_limits<float>;
  Check check;
  std::mt19937_64 rng(0xca9c);
  for (int i = 0; i < 2000000; ++i) {
    float x, y, z;
    switch (i % 6) {
      case 0: {  // z cancels the rounded product: the result is the product's rounding error (or 0)
        x = random_float(rng, uniform(rng, -60, 60));
        y = random_float(rng, uniform(rng, -60, 60));
        z = -(x * y);
        if (rng() & 1) z = std::nextafter(z, (rng() & 1) ? L::infinity() : -L::infinity());
        break;
      }
      case 1: {  // exact cancellation to ±0, and zero products with signed zero addends
        x = random_float(rng, uniform(rng, -20, 20));
        y = (rng() & 1) ? 1.0f : ((rng() & 1) ? 0.0f : -0.0f);
        z = (rng() & 1) ? -x * y : ((rng() & 1) ? 0.0f : -0.0f);
        break;
      }
      case 2: {  // results in and next to the subnormal range
        const int ex = uniform(rng, -126, 0);
        x = random_float(rng, ex);
        y = random_float(rng, uniform(rng, -150 - ex, -110 - ex));
        z = (rng() & 1) ? random_float(rng, uniform(rng, -130, -120))
                        : std::bit_cast<float>(static_cast<std::uint32_t>(rng()) & 0x807FFFFFu);
        if (rng() & 1) z = -(x * y) + z;
        break;
      }
      case 3: {  // products and sums next to the overflow boundary 2^128 - 2^103
        const int ex = uniform(rng, 0, 127);
        x = random_float(rng, ex);
        y = random_float(rng, 127 - ex - uniform(rng, 0, 1));
        z = (rng() & 1) ? random_float(rng, uniform(rng, 100, 127)) : std::nextafter(L::max(), 0.0f) - std::fabs(x * y);
        if (!std::isfinite(z)) z = L::max();
        break;
      }
      case 4: {
        if (rng() & 1) {  // x y = FLT_MAX exactly, z around half an ULP of it (the midpoint to inf)
          x = 0x1p+64f;
          y = (0x1p+64f - 0x1p+40f) * ((rng() & 1) ? 1.0f : -1.0f);
          const float half = 0x1p+103f * std::copysign(1.0f, y);
          const int k = uniform(rng, 0, 3);
          z = k == 0 ? half : k == 1 ? std::nextafter(half, 0.0f) : k == 2 ? std::nextafter(half, 2 * half) : -half;
        } else {  // x y = 2^128 - 2^103 (= 31 601 1801 2^103), the overflow midpoint itself; z tiny of either sign
          const int a = uniform(rng, 0, 103);
          x = std::ldexp(18631.0f, a) * ((rng() & 1) ? 1.0f : -1.0f);  // 31 * 601
          y = std::ldexp(1801.0f, 103 - a);
          z = (rng() % 3 == 0) ? 0.0f : std::ldexp((rng() & 1) ? 1.0f : -1.0f, -uniform(rng, 0, 126));
        }
        break;
      }
      default: {  // products and addends of nearby magnitudes
        const int e = uniform(rng, -120, 120);
        const int ex = uniform(rng, std::max(-126, e - 126), std::min(127, e + 126));
        x = random_float(rng, ex);
        y = random_float(rng, std::clamp(e - ex, -126, 127));
        z = random_float(rng, std::clamp(e + uniform(rng, -26, 26), -126, 127));
        break;
      }
    }
    check("boundary", x, y, z);
  }
  MESSAGE(check.report.checked << " results checked");
  CHECK(check.report.failures == 0);
}

TEST_CASE("wide f32 fma: random operand triples") {
  const std::uint64_t n = random_cases();
  Check check;
  std::mt19937_64 rng(0xf3a);
  for (std::uint64_t i = 0; i < n; ++i) {
    float x, y, z;
    if (i % 2 == 0) {  // any bit patterns
      const std::uint64_t r = rng();
      x = std::bit_cast<float>(static_cast<std::uint32_t>(r));
      y = std::bit_cast<float>(static_cast<std::uint32_t>(r >> 32));
      z = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    } else {  // exponents that make the product and the addend overlap
      const int ex = uniform(rng, -70, 70), ey = uniform(rng, -70, 70);
      x = random_float(rng, ex);
      y = random_float(rng, ey);
      z = random_float(rng, std::clamp(ex + ey + uniform(rng, -30, 30), -126, 127));
    }
    check("random", x, y, z);
  }
  MESSAGE(check.report.checked << " results checked");
  CHECK(check.report.failures == 0);
}

TEST_CASE("wide f32 fma: normal operands with a normal result take the fast path") {
  Wide wide;
  Report report;
  std::mt19937_64 rng(0xfa57);
  for (int i = 0; i < 100000; ++i) {
    const float x = random_float(rng, uniform(rng, -40, 40)), y = random_float(rng, uniform(rng, -40, 40));
    const float z = (i % 10 == 0) ? 0.0f : random_float(rng, uniform(rng, -60, 60));
    report("fast", x, y, z, std::fma(x, y, z), wide(x, y, z));
  }
  for (float zero : {0.0f, -0.0f}) report("fast", zero, 3.0f, zero, std::fma(zero, 3.0f, zero), wide(zero, 3.0f, zero));
  CHECK(report.failures == 0);
  CHECK(wide.fallbacks == 0);
  // And the others do not: subnormal, infinite and NaN operands, subnormal results.
  const float hard[][3] = {{0x1p-149f, 1.0f, 1.0f}, {1.0f, std::numeric_limits<float>::infinity(), 1.0f},
                           {1.0f, 1.0f, std::numeric_limits<float>::quiet_NaN()}, {0x1p-70f, 0x1p-70f, 0.0f}};
  for (const auto& t : hard) report("hard", t[0], t[1], t[2], std::fma(t[0], t[1], t[2]), wide(t[0], t[1], t[2]));
  CHECK(wide.fallbacks == 4);
  CHECK(report.failures == 0);
}

TEST_CASE("a conversion that truncates is caught: the tests can fail") {
  Wide wide;
  wide.cpu.truncating = true;
  std::mt19937_64 rng(0xbad);
  int wrong = 0;
  for (int i = 0; i < 1000; ++i) {
    const float x = random_float(rng, 0), y = random_float(rng, 0), z = random_float(rng, -3);
    if (!same(std::fma(x, y, z), wide(x, y, z))) ++wrong;
  }
  CHECK(wrong > 0);
}
