// Accuracy of the math library, checked on the CPU twin of every PTX function (the same
// instruction sequence, see plugins/shared/math/cpu_backend.hpp):
//   - C99 Annex F / SPEC special values, bit for bit (any NaN matches NaN);
//   - the witnesses of each function (edges and branch points) within the SPEC §5 ULP bound less
//     one (the margin for the conform reference's own rounding), with +-0, +-inf and NaN exact in
//     both directions;
//   - f32: every 1031st bit pattern (about 4.2 million inputs per function, all exponents);
//   - f64: 100000 seeded random inputs per function (half uniform over bit patterns, half on the
//     function's interesting interval); exp and log another 400000 each over their whole range
//     (every exponent, the subnormal and overflow edges, the fast-path edge of exp at |x| = 708,
//     log near 1 and where e ln2 and log(m) cancel).
// The exhaustive f32 run and longer f64 runs are vyre-math-check's job (ACCURACY.md).
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

#include <quadmath.h>

#include "cpu_math.hpp"
#include "math/algorithms/functions.hpp"
#include "math/algorithms/trig_reduction.hpp"
#include "math/cpu_backend.hpp"
#include "reference.hpp"
#include "sweep.hpp"
#include "witnesses.hpp"

namespace {

using namespace vyre::cuda::math_test;

constexpr std::uint64_t kF32Stride = 1031;
constexpr std::uint64_t kF64Samples = 100000;
constexpr std::uint64_t kSeed = 20240601;

// f64 exp/log inputs in eight strata of `per` each (see the file comment).
std::vector<double> whole_range_f64(vyre::UnOp op, std::uint64_t per) {
  std::mt19937_64 rng(kSeed + static_cast<std::uint64_t>(op));
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  auto log_uniform = [&](double lo_exp, double hi_exp) { return std::exp2(uniform(lo_exp, hi_exp)); };
  auto sign = [&](double v) { return (rng() & 1) ? -v : v; };
  std::vector<double> out;
  for (int stratum = 0; stratum < 8; ++stratum) {
    for (std::uint64_t i = 0; i < per; ++i) {
      double x = 0;
      if (op == vyre::UnOp::Exp) {
        switch (stratum) {
          case 0: x = uniform(-746, 710); break;
          case 1: x = sign(log_uniform(-60, 9.55)); break;      // |x| from 2^-60 to 750
          case 2: x = uniform(-745.2, -708); break;              // subnormal results
          case 3: x = uniform(700, 709.8); break;                // up to overflow
          case 4: x = sign(uniform(707.9, 708.1)); break;        // the fast path's edge
          case 5: x = uniform(-2, 2); break;
          case 6: x = std::bit_cast<double>(rng()); break;       // every exponent, NaN, inf
          default: x = sign(log_uniform(-1074, -20)); break;     // tiny, e^x = 1 + x
        }
      } else {
        switch (stratum) {
          case 0: x = std::bit_cast<double>(rng() >> 1); break;  // every positive pattern
          case 1: x = std::bit_cast<double>(rng() >> 12); break; // subnormals
          case 2: x = 1 + sign(log_uniform(-60, -1)); break;     // near 1
          case 3: x = uniform(1.38, 1.46) * std::exp2(std::floor(uniform(-3, 3))); break;
          case 4: x = uniform(0.69, 0.73) * std::exp2(std::floor(uniform(-3, 3))); break;
          case 5: x = uniform(0.5, 2); break;
          case 6: x = log_uniform(-1074, 1024); break;
          default: x = uniform(0, 1e300); break;
        }
      }
      out.push_back(x);
    }
  }
  return out;
}

unsigned threads() { return std::max(1u, std::min(2u, std::thread::hardware_concurrency())); }

void check_sweep(vyre::UnOp op, bool f64, const SweepResult& r) {
  const std::string label = function_label(op, f64);
  MESSAGE(label << ": " << summary(r, f64));
  INFO(label << ": " << summary(r, f64));
  CHECK(r.over_bound == 0);
  // One ULP of the SPEC bound is left for the conform reference's own rounding (ACCURACY.md).
  CHECK(r.max_ulp + 1 <= ulp_bound(op));
  // And the library keeps its measured accuracy, tighter than SPEC: every function within 1 ULP of
  // the correctly rounded result on every input of ACCURACY.md's exhaustive and sampled runs.
  CHECK(r.max_ulp <= 1);
}

template <class Case, class Fn>
void check_special(const Case& c, Fn fn, bool f64) {
  const auto actual = fn(c.op)(c.input);
  INFO(function_label(c.op, f64) << "(" << describe(c.input) << ") = " << describe(actual)
                                 << ", want " << describe(c.expected));
  CHECK(ulp_distance(actual, c.expected) == 0);
}

}  // namespace

// fn once per admissible value of the unspecified instructions in op's f32 twin (cpu_math.hpp).
template <class Fn>
void for_each_f32_variant(vyre::UnOp op, Fn fn) {
  for (int v = 0; v < f32_variants(op); ++v) {
    INFO("variant " << v << " of " << f32_variants(op));
    use_f32_variant(v);
    fn();
  }
  use_f32_variant(0);
}

TEST_CASE("special values are exact") {
  for (const auto& c : special_cases_f32()) {
    for_each_f32_variant(c.op, [&] { check_special(c, cpu_f32, false); });
  }
  for (const auto& c : special_cases_f64()) check_special(c, cpu_f64, true);
}

TEST_CASE("witnesses are within the ULP bound") {
  for (vyre::UnOp op : vyre::math::kLibraryOps) {
    for_each_f32_variant(op, [&] { check_sweep(op, false, sweep_f32_inputs(op, witnesses_f32(op))); });
    check_sweep(op, true, sweep_f64_inputs(op, witnesses_f64(op), 1));
  }
}

TEST_CASE("f32: a stratified sample of all bit patterns is within the ULP bound") {
  for (vyre::UnOp op : vyre::math::kLibraryOps) {
    for_each_f32_variant(op, [&] {
      check_sweep(op, false, sweep_f32(op, 0, std::uint64_t{1} << 32, kF32Stride, threads()));
    });
  }
}

TEST_CASE("f32 inverse_sqrt: the model of rsqrt.approx.f32 offers every admissible first guess") {
  // 2^-22.9 relative error admits 3 to 5 floats around 1/sqrt(x); the variants walk them from below.
  const float x = 2.0f;
  const double exact = 1.0 / std::sqrt(2.0);
  use_f32_variant(0);
  const float lowest = vyre::math::CpuBackend::rsqrt_approx({x}).v;
  use_f32_variant(f32_variants(vyre::UnOp::InverseSqrt) - 1);
  const float highest = vyre::math::CpuBackend::rsqrt_approx({x}).v;
  use_f32_variant(0);
  CHECK(lowest < exact);
  CHECK(highest > exact);
  CHECK(std::fabs(lowest - exact) / exact <= std::exp2(-22.9));
  CHECK(std::fabs(highest - exact) / exact <= std::exp2(-22.9));
  CHECK(std::nextafter(lowest, 0.0f) < exact * (1 - std::exp2(-22.9)));
  CHECK(std::nextafter(highest, 1.0f) > exact * (1 + std::exp2(-22.9)));
}

TEST_CASE("the model of min.f32 drops one NaN operand, keeps two, and orders -0 below +0") {
  using vyre::math::CpuBackend;
  CHECK(CpuBackend::min_num({NAN}, {1.0f}).v == 1.0f);  // inverse_sqrt's specials
  CHECK(CpuBackend::min_num({1.0f}, {NAN}).v == 1.0f);
  CHECK(std::isnan(CpuBackend::min_num({NAN}, {NAN}).v));
  CHECK(CpuBackend::min_num({0x1p-22f}, {1.0f}).v == 0x1p-22f);
  CHECK(CpuBackend::min_num({-0x1p-22f}, {1.0f}).v == -0x1p-22f);
  CHECK(CpuBackend::min_num({INFINITY}, {1.0f}).v == 1.0f);
  CHECK(CpuBackend::min_num({1.0f}, {-INFINITY}).v == -INFINITY);
  CHECK(std::signbit(CpuBackend::min_num({0.0f}, {-0.0f}).v));
  CHECK(std::signbit(CpuBackend::min_num({-0.0f}, {0.0f}).v));
}

TEST_CASE("f32 asin, acos: the model of rsqrt.approx.ftz.f32 flushes subnormal inputs and otherwise is rsqrt.approx") {
  use_f32_variant(0);
  CHECK(vyre::math::CpuBackend::rsqrt_approx_ftz({0x1p-130f}).v == INFINITY);
  CHECK(std::fabs(vyre::math::CpuBackend::rsqrt_approx({0x1p-130f}).v / 0x1p65f - 1) <= std::exp2(-22.9));
  CHECK(vyre::math::CpuBackend::rsqrt_approx_ftz({-0x1p-140f}).v == -INFINITY);
  for (int v = 0; v < f32_variants(vyre::UnOp::Asin); ++v) {
    use_f32_variant(v);
    for (float x : {0x1p-126f, 0x1p-25f, 0.1f, 0.25f, 0.5f}) {
      CAPTURE(x);
      CHECK(vyre::math::CpuBackend::rsqrt_approx_ftz({x}).v == vyre::math::CpuBackend::rsqrt_approx({x}).v);
    }
  }
  use_f32_variant(0);
}

TEST_CASE("f32 Cody-Waite: the quadrant and the unnormalised pair are what trig_reduction.hpp states") {
  // Every 4099th f32 in [0, 2^17) (the reduction's range; sin, cos and tan reduce |x|): x - n pi/2
  // is r_hi + r_lo to within 2^-50, n mod 4 is the low bits of the returned quadrant, |r_hi| stays
  // within pi/4 plus what the f32 rounding of 2/pi allows, and |r_lo| <= ulp(r_hi)/2 + 2^-31.
  const __float128 half_pi = acosq(static_cast<__float128>(0));
  std::size_t checked = 0;
  for (std::uint32_t bits = 0; bits < std::bit_cast<std::uint32_t>(0x1p17f); bits += 4099) {
    const float x = std::bit_cast<float>(bits);
    CAPTURE(x);
    vyre::math::CpuBackend b;
    const auto r = vyre::math::cody_waite_f32(b, vyre::math::CpuBackend::F32{x});
    const float hi = r.r_hi.v;
    const float lo = r.r_lo.v;
    const __float128 n = roundq((static_cast<__float128>(x) - hi - lo) / half_pi);
    const auto n_mod_4 = static_cast<std::uint32_t>(static_cast<std::int64_t>(n) & 3);
    CHECK((r.n.v & 3u) == n_mod_4);
    const __float128 exact = static_cast<__float128>(x) - n * half_pi;
    const double ulp_hi = hi == 0.0f ? 0x1p-149 : std::ldexp(1.0, std::ilogb(hi) - 23);
    // The nearest integer to x times 2/pi rounded to f32 (2.57e-8 below 2/pi): |r| <= pi/4 +
    // x 2.57e-8 pi/2 (0.0053 at 2^17), plus rounding: at most 0.79069, inside the f32 kernels' fits
    // (r^2 <= 0.6254, polynomials.hpp).
    CHECK(std::fabs(hi) <= 0x1.921fb6p-1 + x * 2.57e-8 * 1.5707964 + 0x1p-20);
    CHECK(std::fabs(static_cast<double>(lo)) <= ulp_hi / 2 + 0x1p-31);
    // pi/2 - C1 - C2 - C3 times n and lo's two roundings: below 2^-50 absolute (2^-40 relative to
    // r_hi where r_hi >= 2^-10).
    CHECK(std::fabs(static_cast<double>(exact - hi - lo)) <= std::max(std::fabs(static_cast<double>(hi)) * 0x1p-40, 0x1p-50));
    ++checked;
  }
  CHECK(checked > 250000);
}

TEST_CASE("f32 tanh, sinh, cosh, atan: the model of rcp.approx.ftz.f32 offers every value within 1 ulp") {
  use_f32_variant(0);
  for (float x : {3.0f, 1.5f, -7.25f, 0.7f}) {
    CAPTURE(x);
    const double exact = 1.0 / x;
    const double ulp = std::ldexp(1.0, std::ilogb(exact) - 23);
    std::vector<float> offered;
    for (int v = 0; v < f32_variants(vyre::UnOp::Tanh); ++v) {
      use_f32_variant(v);
      offered.push_back(vyre::math::CpuBackend::rcp_approx_ftz({x}).v);
    }
    use_f32_variant(0);
    CHECK(std::is_sorted(offered.begin(), offered.end()));
    for (float y : offered) CHECK(std::fabs(y - exact) <= ulp);
    CHECK(std::fabs(std::nextafter(offered.front(), -INFINITY) - exact) > ulp);  // none below
    CHECK(std::fabs(std::nextafter(offered.back(), INFINITY) - exact) > ulp);    // none above
    CHECK(offered.front() < exact);
    CHECK(offered.back() > exact);
  }
  // Powers of two: the exact value and three neighbours (the spacing halves below it).
  use_f32_variant(3);
  CHECK(vyre::math::CpuBackend::rcp_approx_ftz({0.25f}).v == 4.0f + 0x1p-21f);
  use_f32_variant(0);
  CHECK(vyre::math::CpuBackend::rcp_approx_ftz({0.25f}).v == 4.0f - 0x1p-21f);
  // Subnormal inputs and results flush to zero of their sign; the IEEE special values.
  CHECK(vyre::math::CpuBackend::rcp_approx_ftz({0x1p-130f}).v == INFINITY);
  CHECK(std::signbit(vyre::math::CpuBackend::rcp_approx_ftz({-0x1p127f}).v));
  CHECK(vyre::math::CpuBackend::rcp_approx_ftz({-0x1p127f}).v == 0.0f);
  CHECK(vyre::math::CpuBackend::rcp_approx_ftz({-INFINITY}).v == 0.0f);
  CHECK(std::isnan(vyre::math::CpuBackend::rcp_approx_ftz({NAN}).v));
}

TEST_CASE("a sweep over every variant counts as one sweep per variant does, evaluating repeats once") {
  // vyre-math-check's certification path (sweep_f32_variants) against one plain sweep per variant,
  // over a sample of bit patterns, for functions with each kind of approximate first guess.
  for (vyre::UnOp op : {vyre::UnOp::Tanh, vyre::UnOp::Cosh, vyre::UnOp::Atan, vyre::UnOp::InverseSqrt, vyre::UnOp::Asin}) {
    CAPTURE(op);
    const int variants = f32_variants(op);
    REQUIRE(variants > 1);
    SweepResult each;
    for (int v = 0; v < variants; ++v) {
      use_f32_variant(v);
      each.merge(sweep_f32(op, 0, std::uint64_t{1} << 32, 40'009, 2));
    }
    use_f32_variant(0);
    const SweepResult once = sweep_f32_variants(op, 0, std::uint64_t{1} << 32, 40'009, 2, variants);
    CHECK(once.cases == each.cases);
    CHECK(once.not_rounded == each.not_rounded);
    CHECK(once.over_bound == each.over_bound);
    CHECK(once.max_ulp == each.max_ulp);
    CHECK(each.not_rounded > 0);  // the sample sees the guesses matter
    CHECK(current_f32_variant() == 0);
  }
}

TEST_CASE("f64: seeded random inputs are within the ULP bound") {
  for (vyre::UnOp op : vyre::math::kLibraryOps) {
    check_sweep(op, true, sweep_f64_inputs(op, random_f64_inputs(op, kF64Samples, kSeed), threads()));
  }
}

TEST_CASE("f64 exp and log: the whole range, the edges and the cancellation zone") {
  for (vyre::UnOp op : {vyre::UnOp::Exp, vyre::UnOp::Log}) {
    check_sweep(op, true, sweep_f64_inputs(op, whole_range_f64(op, 50000), threads()));
  }
}
