#include "codegen/fma_probe.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "vyre/builder.hpp"

namespace vyre::vulkan {

namespace {

// Expected bits: the host's std::fma, NaN as the canonical NaN.
template <class F, class U>
std::vector<FmaProbeCase> with_expected(const std::vector<F>& a, const std::vector<F>& b, const std::vector<F>& c) {
  std::vector<FmaProbeCase> out(a.size());
  const U canonical_nan = sizeof(F) == 4 ? U(0x7FC00000u) : static_cast<U>(0x7FF8000000000000ull);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const F r = std::fma(a[i], b[i], c[i]);
    out[i] = {std::bit_cast<U>(a[i]), std::bit_cast<U>(b[i]), std::bit_cast<U>(c[i]),
              std::isnan(r) ? canonical_nan : std::bit_cast<U>(r)};
  }
  return out;
}

template <class F, class U>
std::vector<FmaProbeCase> cases_of() {
  using L = std::numeric_limits<F>;
  constexpr int digits = L::digits;  // 24, 53
  const F one = 1, two = 2;
  const F inf = L::infinity(), max = L::max(), min = L::min();
  const F ulp1 = std::ldexp(one, 1 - digits);  // the spacing above 1
  const F e = std::ldexp(one, -(digits / 2 + 2));  // e^2 is below half the spacing under 1
  std::vector<F> a, b, c;
  auto add = [&](F x, F y, F z) {
    a.push_back(x);
    b.push_back(y);
    c.push_back(z);
  };
  // (1 + e)(1 - e) = 1 - e^2 rounds to 1: fused -e^2, unfused 0.
  add(one + e, one - e, -one);
  add(one - e, one + e, -one);
  add(-(one + e), one - e, one);
  // 1 + ulp/2 - tiny rounds to 1; plus 2^digits the exact sum is just above a tie: fused rounds up.
  add(one + ulp1, one - ulp1 / 2, std::ldexp(one, digits));
  add(one + ulp1, one - ulp1 / 2, -std::ldexp(one, digits));
  // Overflow unless fused: 2 max - max = max; max (1 + ulp) - max; 2 max - inf = -inf (unfused NaN).
  add(max, two, -max);
  add(-max, two, max);
  add(max, one + ulp1, -max);
  add(max, two, -inf);
  add(max / 2, std::ldexp(one, 1) + ulp1 * 2, -max);
  // Subnormal results and signed zeros decided by the unrounded product.
  add(min * (one + e), one - e, -min);                   // fused -min e^2 rounds to -0, unfused +0
  add(min, one - ulp1 / 2, -min);                        // fused -min ulp/2 (subnormal), unfused 0
  add(min * (one + ulp1), one - ulp1, -min);             // a subnormal only when fused
  add(std::ldexp(one + ulp1, -(L::max_exponent / 2)), std::ldexp(one + ulp1, -(L::max_exponent / 2)),
      -std::ldexp(one + 2 * ulp1, 2 * -(L::max_exponent / 2)));
  add(L::denorm_min(), F(0.5), F(0));                    // exact product below the smallest subnormal
  add(L::denorm_min(), F(-0.5), F(0));
  add(L::denorm_min(), F(0.75), -L::denorm_min());
  add(F(0), F(-1), F(0));
  add(F(-0.0), F(1), F(-0.0));
  add(F(1), F(-1), F(1));                                // +0 in round to nearest
  add(L::denorm_min(), L::denorm_min(), F(-0.0));        // +tiny + -0 = +0
  add(-L::denorm_min(), L::denorm_min(), F(0));          // -tiny + +0 = -0
  // Infinities and NaN.
  add(inf, F(0), one);
  add(inf, one, -inf);
  add(inf, one, inf);
  add(one, one, inf);
  add(L::quiet_NaN(), one, one);
  add(one, L::quiet_NaN(), F(0));
  add(one, one, L::quiet_NaN());
  add(max, max, -inf);
  // Huge and tiny magnitudes together.
  add(std::ldexp(one, L::max_exponent - 2), std::ldexp(one, L::min_exponent), min);
  add(std::ldexp(one + ulp1, L::max_exponent / 2), std::ldexp(one - ulp1, L::max_exponent / 2), -max / 2);
  add(std::ldexp(one + e, 40), std::ldexp(one - e, -40), -one);
  add(min, min, one);
  add(min, max, -(min * max));
  // Products whose rounding error is the answer, and random operands of every exponent.
  std::uint64_t s = 0x243F6A8885A308D3ull;
  auto next = [&] {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  };
  auto unit = [&] { return one + static_cast<F>(next() % 999983) / static_cast<F>(999983); };
  for (int i = 0; i < 16; ++i) {
    const F x = unit(), y = std::ldexp(unit(), static_cast<int>(next() % 41) - 20);
    add(x, y, -(x * y));
    add(x, -y, x * y);
  }
  for (int i = 0; i < 8; ++i) {
    const F x = std::ldexp(unit(), L::min_exponent / 2), y = std::ldexp(unit(), L::min_exponent / 2 - 4);
    add(x, y, -(x * y));  // the product's error falls in the subnormal range
  }
  for (int i = 0; i < 16; ++i)
    add(std::bit_cast<F>(static_cast<U>(next())), std::bit_cast<F>(static_cast<U>(next())),
        std::bit_cast<F>(static_cast<U>(next())));

  return with_expected<F, U>(a, b, c);
}

template <class F, class U>
std::vector<FmaProbeCase> exact_cases_of() {
  // Small integers and powers of two: every product and sum is exact.
  std::vector<F> a, b, c;
  for (int i = 0; i < 32; ++i) {
    a.push_back(static_cast<F>(i % 7 - 3));
    b.push_back(std::ldexp(static_cast<F>(i % 5 + 1), i % 9 - 4));
    c.push_back(static_cast<F>(i % 11) - 5);
  }
  return with_expected<F, U>(a, b, c);
}

}  // namespace

std::vector<FmaProbeCase> fma_probe_cases(Type t) {
  return t == Type::F32 ? cases_of<float, std::uint32_t>() : cases_of<double, std::uint64_t>();
}

std::vector<FmaProbeCase> fma_probe_exact_cases(Type t) {
  return t == Type::F32 ? exact_cases_of<float, std::uint32_t>() : exact_cases_of<double, std::uint64_t>();
}

Program fma_probe_program(Type t, std::uint32_t n) {
  using namespace vyre::dsl;
  ProgramBuilder p;
  p.workgroup(64);
  auto a = p.buffer("a", Access::Read, t);
  auto b = p.buffer("b", Access::Read, t);
  auto c = p.buffer("c", Access::Read, t);
  auto out = p.buffer("out", Access::Output, t, n);
  auto i = p.let("i", invocation_id(0));
  p.store(out, i, fma(a[i], b[i], c[i]));
  return p.build();
}

DeviceFeatures fma_probe_features(DeviceFeatures base, Type t) {
  base.set_fma(t, DeviceFeatures::FmaSource::Probe);
  return base;
}

std::size_t fma_probe_mismatches(std::span<const FmaProbeCase> cases, std::span<const std::uint64_t> results) {
  if (results.size() != cases.size()) return std::max<std::size_t>(cases.size(), 1);
  std::size_t n = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) n += results[i] != cases[i].expected ? 1 : 0;
  return n;
}

bool fma_probe_passes(std::span<const FmaProbeCase> cases, std::span<const std::uint64_t> results) {
  return !cases.empty() && fma_probe_mismatches(cases, results) == 0;
}

}  // namespace vyre::vulkan
