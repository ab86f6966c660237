// Float division by a power-of-two literal lowered as a multiplication by its exact reciprocal
// (optimize/exact_reciprocal.hpp): which literals qualify, that x / d and x * (1/d) round to the
// same bits for every kind of dividend (checked here with the host's IEEE arithmetic, round to
// nearest even, no flush to zero), and the emitted PTX with and without the optimizer.
#include <doctest/doctest.h>

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "lowering.hpp"
#include "optimize/exact_reciprocal.hpp"
#include "ptx_text.hpp"
#include "vyre/builder.hpp"
#include "vyre/validate.hpp"

namespace {

using namespace vyre::dsl;
using vyre::Access;
using vyre::Type;
namespace cuda = vyre::cuda;
namespace opt = vyre::cuda::optimize;

std::uint64_t f32_bits(float v) { return std::bit_cast<std::uint32_t>(v); }
std::uint64_t f64_bits(double v) { return std::bit_cast<std::uint64_t>(v); }

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("exact reciprocals: powers of two whose reciprocal is a normal number, nothing else") {
  CHECK(opt::exact_reciprocal(Type::F32, f32_bits(1024.0f)) == f32_bits(1.0f / 1024.0f));
  CHECK(opt::exact_reciprocal(Type::F32, f32_bits(0.5f)) == f32_bits(2.0f));
  CHECK(opt::exact_reciprocal(Type::F32, f32_bits(-8.0f)) == f32_bits(-0.125f));
  CHECK(opt::exact_reciprocal(Type::F32, f32_bits(1.0f)) == f32_bits(1.0f));
  CHECK(opt::exact_reciprocal(Type::F32, f32_bits(0x1p126f)) == f32_bits(0x1p-126f));  // smallest normal
  CHECK(opt::exact_reciprocal(Type::F32, f32_bits(0x1p-126f)) == f32_bits(0x1p126f));
  CHECK_FALSE(opt::exact_reciprocal(Type::F32, f32_bits(0x1p127f)));   // 2^-127 is subnormal
  CHECK_FALSE(opt::exact_reciprocal(Type::F32, f32_bits(0x1p-127f)));  // subnormal divisor
  CHECK_FALSE(opt::exact_reciprocal(Type::F32, f32_bits(3.0f)));
  CHECK_FALSE(opt::exact_reciprocal(Type::F32, f32_bits(1.5f)));
  CHECK_FALSE(opt::exact_reciprocal(Type::F32, f32_bits(0.0f)));
  CHECK_FALSE(opt::exact_reciprocal(Type::F32, f32_bits(-0.0f)));
  CHECK_FALSE(opt::exact_reciprocal(Type::F32, f32_bits(std::numeric_limits<float>::infinity())));
  CHECK_FALSE(opt::exact_reciprocal(Type::F32, 0x7FC00000));
  CHECK(opt::exact_reciprocal(Type::F64, f64_bits(1024.0)) == f64_bits(1.0 / 1024.0));
  CHECK(opt::exact_reciprocal(Type::F64, f64_bits(-0x1p1022)) == f64_bits(-0x1p-1022));
  CHECK_FALSE(opt::exact_reciprocal(Type::F64, f64_bits(0x1p1023)));
  CHECK_FALSE(opt::exact_reciprocal(Type::F64, f64_bits(10.0)));
  CHECK_FALSE(opt::exact_reciprocal(Type::U32, 1024));
}

TEST_CASE("x / 2^k and x * 2^-k round to the same bits for every kind of f32 and f64 dividend") {
  REQUIRE(std::fegetround() == FE_TONEAREST);
  std::mt19937 rng(11);
  std::vector<std::uint32_t> dividends = {0x00000000u, 0x80000000u, 0x00000001u, 0x807FFFFFu, 0x00800000u,
                                          0x7F7FFFFFu, 0xFF7FFFFFu, 0x7F800000u, 0xFF800000u, 0x7FC00000u,
                                          0x3F800000u, 0x00400001u, 0x00000003u};
  for (int i = 0; i < 200000; ++i) dividends.push_back(static_cast<std::uint32_t>(rng()));
  std::size_t compared = 0;
  for (int k = -126; k <= 126; k += 3) {
    for (float sign : {1.0f, -1.0f}) {
      const float d = sign * std::ldexp(1.0f, k);
      const auto reciprocal = opt::exact_reciprocal(Type::F32, f32_bits(d));
      REQUIRE(reciprocal.has_value());
      const float r = std::bit_cast<float>(static_cast<std::uint32_t>(*reciprocal));
      for (std::size_t i = 0; i < dividends.size(); i += 37) {
        const float x = std::bit_cast<float>(dividends[i]);
        const volatile float q = x / d;
        const volatile float p = x * r;
        if (std::isnan(q)) {
          CHECK(std::isnan(p));
        } else {
          INFO("x bits " << dividends[i] << ", d = 2^" << k);
          CHECK(f32_bits(q) == f32_bits(p));
        }
        ++compared;
      }
    }
  }
  for (int k = -1022; k <= 1022; k += 97) {
    const double d = std::ldexp(1.0, k);
    const double r = std::bit_cast<double>(*opt::exact_reciprocal(Type::F64, f64_bits(d)));
    for (double x : {0x1p-1074, -0x1p-1060, 0x1.fffffffffffffp1023, 3.0, -0.0, 0x1.8p-1022}) {
      const volatile double q = x / d;
      const volatile double p = x * r;
      CHECK(f64_bits(q) == f64_bits(p));
    }
  }
  CHECK(compared > 100000);
}

TEST_CASE("the emitted PTX: mul.rn by the reciprocal for a power-of-two literal divisor, div.rn otherwise") {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto x = b.buffer("x", Access::Read, Type::F32);
  auto y = b.buffer("y", Access::Output, Type::F32, 64);
  auto z = b.buffer("z", Access::Output, Type::F64, 64);
  b.store(y, local_id(0), x[local_id(0)] / f32(1024.0f));   // mul.rn by 2^-10
  b.store(y, local_id(0), x[local_id(0)] / f32(3.0f));      // div.rn
  b.store(y, local_id(0), x[local_id(0)] / x[u32(0)]);      // div.rn
  b.store(z, local_id(0), cast(Type::F64, x[local_id(0)]) / f64(-0.25));  // mul.rn.f64 by -4
  (void)y;
  (void)z;
  const vyre::Program program = b.build();
  vyre::validate_or_throw(program);
  const auto on = cuda::lower(program, cuda::Target{90}, cuda::LowerOptions{.workgroup = std::array<std::uint32_t, 3>{64, 1, 1}});
  CHECK(count(on.ptx, "mul.rn.f32") == 1);
  CHECK(count(on.ptx, ", 0f3A800000;") == 1);
  CHECK(count(on.ptx, "mul.rn.f64") == 1);
  CHECK(count(on.ptx, ", 0dC010000000000000;") == 1);
  CHECK(count(on.ptx, "div.rn.f32") == 2);
  CHECK(count(on.ptx, "div.rn.f64") == 0);
  const auto off = cuda::lower(program, cuda::Target{90},
                               cuda::LowerOptions{.workgroup = std::array<std::uint32_t, 3>{64, 1, 1}, .optimize = false});
  CHECK(count(off.ptx, "div.rn.f32") == 3);
  CHECK(count(off.ptx, "div.rn.f64") == 1);
  CHECK(count(off.ptx, "mul.rn") == 0);
}
