#include "sweep.hpp"

#include <bit>
#include <cstdio>
#include <random>
#include <thread>

#include "cpu_math.hpp"
#include "reference.hpp"

namespace vyre::cuda::math_test {
namespace {

template <class T, class U>
void record(SweepResult& r, T input, T actual, T expected, std::uint64_t bound) {
  ++r.cases;
  const std::uint64_t d = ulp_distance(actual, expected);
  if (d != 0) ++r.not_rounded;
  if (d > bound) {
    if (!r.any_bad) r.first_bad_input = std::bit_cast<U>(input);
    r.any_bad = true;
    ++r.over_bound;
  }
  if (r.cases == 1 || d > r.max_ulp) {
    r.max_ulp = d;
    r.worst_input = std::bit_cast<U>(input);
    r.worst_actual = std::bit_cast<U>(actual);
    r.worst_expected = std::bit_cast<U>(expected);
  }
}

// Split [0, n) into `threads` contiguous parts and run fn(part_begin, part_end, result) on each.
template <class Fn>
SweepResult parallel(std::uint64_t n, unsigned threads, Fn fn) {
  if (threads == 0) threads = 1;
  std::vector<SweepResult> parts(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    const std::uint64_t lo = n * t / threads;
    const std::uint64_t hi = n * (t + 1) / threads;
    pool.emplace_back([&, lo, hi, t] { fn(lo, hi, parts[t]); });
  }
  for (auto& th : pool) th.join();
  SweepResult total;
  for (const auto& p : parts) total.merge(p);
  return total;
}

}  // namespace

void SweepResult::merge(const SweepResult& other) {
  if (other.cases == 0) return;
  if (other.any_bad && !any_bad) first_bad_input = other.first_bad_input;
  any_bad = any_bad || other.any_bad;
  over_bound += other.over_bound;
  not_rounded += other.not_rounded;
  if (cases == 0 || other.max_ulp > max_ulp) {
    max_ulp = other.max_ulp;
    worst_input = other.worst_input;
    worst_actual = other.worst_actual;
    worst_expected = other.worst_expected;
  }
  cases += other.cases;
}

SweepResult sweep_f32(vyre::UnOp op, std::uint64_t begin, std::uint64_t end, std::uint64_t stride,
                      unsigned threads) {
  const F32Fn fn = cpu_f32(op);
  const std::uint64_t bound = ulp_bound(op);
  const std::uint64_t steps = end > begin ? (end - begin + stride - 1) / stride : 0;
  const int variant = current_f32_variant();
  return parallel(steps, threads, [&](std::uint64_t lo, std::uint64_t hi, SweepResult& r) {
    use_f32_variant(variant);
    for (std::uint64_t i = lo; i < hi; ++i) {
      const auto bits = static_cast<std::uint32_t>(begin + i * stride);
      const float x = std::bit_cast<float>(bits);
      record<float, std::uint32_t>(r, x, fn(x), reference_f32(op, x), bound);
    }
  });
}

SweepResult sweep_f32_variants(vyre::UnOp op, std::uint64_t begin, std::uint64_t end, std::uint64_t stride,
                               unsigned threads, int variants) {
  const F32Fn fn = cpu_f32(op);
  const std::uint64_t bound = ulp_bound(op);
  const std::uint64_t steps = end > begin ? (end - begin + stride - 1) / stride : 0;
  return parallel(steps, threads, [&](std::uint64_t lo, std::uint64_t hi, SweepResult& r) {
    for (std::uint64_t i = lo; i < hi; ++i) {
      const auto bits = static_cast<std::uint32_t>(begin + i * stride);
      const float x = std::bit_cast<float>(bits);
      const float expected = reference_f32(op, x);
      for (int v = 0; v < variants; ++v) {
        use_f32_variant(v);
        reset_f32_admitted();
        const float y = fn(x);
        record<float, std::uint32_t>(r, x, y, expected, bound);
        if (f32_admitted() > v + 1) continue;
        for (int later = v + 1; later < variants; ++later) record<float, std::uint32_t>(r, x, y, expected, bound);
        break;
      }
    }
    use_f32_variant(0);
  });
}

SweepResult sweep_f32_inputs(vyre::UnOp op, const std::vector<float>& inputs) {
  const F32Fn fn = cpu_f32(op);
  SweepResult r;
  for (float x : inputs) record<float, std::uint32_t>(r, x, fn(x), reference_f32(op, x), ulp_bound(op));
  return r;
}

SweepResult sweep_f64_inputs(vyre::UnOp op, const std::vector<double>& inputs, unsigned threads) {
  const F64Fn fn = cpu_f64(op);
  const std::uint64_t bound = ulp_bound(op);
  return parallel(inputs.size(), threads, [&](std::uint64_t lo, std::uint64_t hi, SweepResult& r) {
    for (std::uint64_t i = lo; i < hi; ++i) {
      const double x = inputs[i];
      record<double, std::uint64_t>(r, x, fn(x), reference_f64(op, x), bound);
    }
  });
}

std::vector<double> random_f64_inputs(vyre::UnOp op, std::uint64_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed ^ (static_cast<std::uint64_t>(op) * 0x9E3779B97F4A7C15ull));
  double lo = -1e3;
  double hi = 1e3;
  switch (op) {
    case vyre::UnOp::Exp: lo = -746; hi = 710; break;
    case vyre::UnOp::Exp2: lo = -1076; hi = 1025; break;
    case vyre::UnOp::Log:
    case vyre::UnOp::Log2: lo = 0.5; hi = 2; break;
    case vyre::UnOp::Sin:
    case vyre::UnOp::Cos:
    case vyre::UnOp::Tan: lo = -1e6; hi = 1e6; break;
    case vyre::UnOp::Asin:
    case vyre::UnOp::Acos: lo = -1; hi = 1; break;
    case vyre::UnOp::Atan: lo = -4; hi = 4; break;
    case vyre::UnOp::Sinh:
    case vyre::UnOp::Cosh: lo = -711; hi = 711; break;
    case vyre::UnOp::Tanh: lo = -3; hi = 3; break;
    case vyre::UnOp::InverseSqrt: lo = 0; hi = 16; break;
    default: break;
  }
  std::uniform_real_distribution<double> interval(lo, hi);
  std::vector<double> out;
  out.reserve(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    if (i % 2 == 0) {
      out.push_back(std::bit_cast<double>(rng()));
    } else {
      out.push_back(interval(rng));
    }
  }
  return out;
}

std::string summary(const SweepResult& r, bool f64) {
  char buf[320];
  auto value = [f64](std::uint64_t bits) {
    return f64 ? describe(std::bit_cast<double>(bits))
               : describe(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
  };
  const std::string ulp = r.max_ulp == kMismatch ? std::string("MISMATCH") : std::to_string(r.max_ulp);
  std::snprintf(buf, sizeof buf, "max %s ulp at x = %s (got %s, want %s); %llu of %llu over bound; %llu not "
                "correctly rounded",
                ulp.c_str(), value(r.worst_input).c_str(), value(r.worst_actual).c_str(),
                value(r.worst_expected).c_str(), static_cast<unsigned long long>(r.over_bound),
                static_cast<unsigned long long>(r.cases),
                static_cast<unsigned long long>(r.not_rounded));
  return buf;
}

}  // namespace vyre::cuda::math_test
