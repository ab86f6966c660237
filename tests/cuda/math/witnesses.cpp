#include "witnesses.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <numbers>

namespace vyre::cuda::math_test {
namespace {

template <class T>
struct Witness {
  std::vector<T> out;

  // v and its `n` neighbours on each side, with both signs.
  void around(T v, int n = 3) {
    for (T s : {v, -v}) {
      T lo = s;
      T hi = s;
      out.push_back(s);
      for (int i = 0; i < n; ++i) {
        lo = std::nextafter(lo, -std::numeric_limits<T>::infinity());
        hi = std::nextafter(hi, std::numeric_limits<T>::infinity());
        out.push_back(lo);
        out.push_back(hi);
      }
    }
  }

  void common() {
    using L = std::numeric_limits<T>;
    for (T v : {T(0), L::infinity(), L::quiet_NaN()}) {
      out.push_back(v);
      out.push_back(-v);
    }
    around(L::denorm_min());
    around(L::min());                                  // smallest normal
    around(std::nextafter(L::min(), T(0)));            // largest subnormal
    around(L::max());
    for (T v : {T(1), T(0.5), T(1) / T(3), std::numbers::pi_v<T>, T(2), T(10), T(100), T(1e10)}) {
      around(v);
    }
  }
};

template <class T>
void add_trig(Witness<T>& w, T payne_hanek_from) {
  const long double half_pi = std::numbers::pi_v<long double> / 2;
  for (int k = 1; k <= 64; ++k) w.around(static_cast<T>(k * half_pi), 2);
  for (long double k : {1e3L, 1e5L, 1e6L, 1e7L, 1e9L, 1e12L, 1e15L}) w.around(static_cast<T>(k * half_pi), 2);
  w.around(payne_hanek_from, 4);
  for (T v : {T(1e4), T(1e6), T(1e15), T(1e22), T(1e30), T(1e38)}) w.around(v, 2);
  w.around(std::numbers::pi_v<T> / 4, 4);
  w.around(std::numbers::pi_v<T> * 3 / 4, 4);
  if constexpr (sizeof(T) == 8) {
    // The double closest to a multiple of pi/2 (Muller, "Elementary Functions"): 6381956970095103
    // * 2^797, |x - k pi/2| ~ 2^-61.
    w.around(std::ldexp(6381956970095103.0, 797), 4);
  }
}

template <class T>
std::vector<T> witnesses(vyre::UnOp op) {
  Witness<T> w;
  w.common();
  constexpr bool f32 = sizeof(T) == 4;
  switch (op) {
    case vyre::UnOp::Exp:
      for (T v : {std::log(std::numeric_limits<T>::max()), std::log(std::numeric_limits<T>::min()),
                  std::log(std::numeric_limits<T>::denorm_min()),
                  std::log(std::numeric_limits<T>::denorm_min()) - std::log(T(2)),
                  T(f32 ? 89 : 710), T(f32 ? -104 : -746), std::log(T(2)) / 2, T(1e-5)}) {
        w.around(v, 6);
      }
      break;
    case vyre::UnOp::Exp2:
      for (T v : {T(f32 ? 128 : 1024), T(f32 ? -126 : -1022), T(f32 ? -149 : -1074),
                  T(f32 ? -150 : -1075), T(f32 ? -151 : -1076), T(f32 ? 130 : 1030),
                  T(f32 ? -152 : -1080), T(0.5), T(1e-5)}) {
        w.around(v, 6);
      }
      for (int k = -20; k <= 20; ++k) w.out.push_back(static_cast<T>(k));
      break;
    case vyre::UnOp::Log:
    case vyre::UnOp::Log2:
      for (T v : {std::sqrt(T(2)), std::sqrt(T(0.5)), T(1), T(2), T(4), T(1e-30), T(1e30)}) w.around(v, 6);
      for (int k = -30; k <= 30; ++k) w.out.push_back(std::ldexp(T(1), k));
      break;
    case vyre::UnOp::Sin:
    case vyre::UnOp::Cos:
    case vyre::UnOp::Tan:
      add_trig<T>(w, T(f32 ? 0x1p17 : 0x1p30));
      break;
    case vyre::UnOp::Asin:
    case vyre::UnOp::Acos:
      for (T v : {T(1), T(0.5), T(0.25), T(0.75), T(0.999), T(1e-10)}) w.around(v, 6);
      if constexpr (f32) w.around(std::bit_cast<float>(0x3f564bf9u), 6);  // 2 ULP before the residual
      break;
    case vyre::UnOp::Atan:
      for (T v : {std::tan(std::numbers::pi_v<T> / 8), std::tan(3 * std::numbers::pi_v<T> / 8),
                  T(1), T(f32 ? 0x1p30 : 0x1p60), T(f32 ? 0x1p26 : 0x1p54), T(1e-10)}) {
        w.around(v, 6);
      }
      if constexpr (f32) w.around(std::bit_cast<float>(0x3f521d07u), 6);  // 2 ULP with a degree-7 fit
      break;
    case vyre::UnOp::Sinh:
    case vyre::UnOp::Cosh:
      for (T v : {T(1), T(f32 ? 89.4159851f : 710.4758600739439), T(f32 ? 90 : 711),
                  T(f32 ? 88.7228394f : 709.782712893384), T(0.5), T(1e-5), T(20)}) {
        w.around(v, 6);
      }
      break;
    case vyre::UnOp::Tanh:
      for (T v : {T(0.55), T(f32 ? 10 : 20), T(f32 ? 9.01f : 19.06), T(1e-5), T(0.3)}) w.around(v, 6);
      break;
    case vyre::UnOp::InverseSqrt:
      for (T v : {T(f32 ? 0x1p-100 : 0x1p-1000), T(f32 ? 0x1p100 : 0x1p1000), T(4), T(0.25), T(3)}) {
        w.around(v, 6);
      }
      break;
    default: break;
  }
  return w.out;
}

template <class T>
std::vector<SpecialCase<T>> special_cases() {
  using L = std::numeric_limits<T>;
  using vyre::UnOp;
  const T inf = L::infinity();
  const T nan = L::quiet_NaN();
  const T pi = std::numbers::pi_v<T>;  // correctly rounded
  const T half_pi = static_cast<T>(std::numbers::pi_v<long double> / 2);
  std::vector<SpecialCase<T>> cases;
  for (UnOp op : {UnOp::Exp, UnOp::Exp2, UnOp::Log, UnOp::Log2, UnOp::Sin, UnOp::Cos, UnOp::Tan,
                  UnOp::Asin, UnOp::Acos, UnOp::Atan, UnOp::Sinh, UnOp::Cosh, UnOp::Tanh,
                  UnOp::InverseSqrt}) {
    cases.push_back({op, nan, nan});
    cases.push_back({op, -nan, nan});
  }
  for (UnOp op : {UnOp::Exp, UnOp::Exp2}) {
    cases.push_back({op, -inf, T(0)});
    cases.push_back({op, inf, inf});
    cases.push_back({op, T(0), T(1)});
    cases.push_back({op, -T(0), T(1)});
    cases.push_back({op, L::max(), inf});
    cases.push_back({op, L::lowest(), T(0)});
  }
  for (UnOp op : {UnOp::Log, UnOp::Log2}) {
    cases.push_back({op, T(0), -inf});
    cases.push_back({op, -T(0), -inf});
    cases.push_back({op, T(-1), nan});
    cases.push_back({op, -L::denorm_min(), nan});
    cases.push_back({op, -inf, nan});
    cases.push_back({op, inf, inf});
    cases.push_back({op, T(1), T(0)});
  }
  if constexpr (sizeof(T) == 8) {
    // f64 exp/log (exp.hpp, log.hpp): both sides of the fast path's |x| < 708 test, and results
    // that round to 1, overflow, underflow to zero or are exactly zero.
    for (T v : {L::denorm_min(), -L::denorm_min(), T(0x1p-60), T(-0x1p-60), T(0x1p-54)}) {
      cases.push_back({UnOp::Exp, v, T(1)});
    }
    for (T v : {T(710), T(709.8), T(1e300), T(0x1p62)}) cases.push_back({UnOp::Exp, v, inf});
    for (T v : {T(-746), T(-745.2), T(-1e300), T(-0x1p62)}) cases.push_back({UnOp::Exp, v, T(0)});
    for (T v : {-L::min(), -L::max(), T(-0.5)}) cases.push_back({UnOp::Log, v, nan});
  }
  for (int k = -149; k <= 127; ++k) {
    if (sizeof(T) == 4 || k % 7 == 0) cases.push_back({UnOp::Log2, std::ldexp(T(1), k), T(k)});
  }
  for (UnOp op : {UnOp::Sin, UnOp::Tan, UnOp::Asin, UnOp::Atan, UnOp::Sinh, UnOp::Tanh}) {
    cases.push_back({op, T(0), T(0)});
    cases.push_back({op, -T(0), -T(0)});
  }
  for (UnOp op : {UnOp::Sin, UnOp::Cos, UnOp::Tan}) {
    cases.push_back({op, inf, nan});
    cases.push_back({op, -inf, nan});
  }
  cases.push_back({UnOp::Cos, T(0), T(1)});
  cases.push_back({UnOp::Cos, -T(0), T(1)});
  for (UnOp op : {UnOp::Asin, UnOp::Acos}) {
    for (T v : {std::nextafter(T(1), inf), std::nextafter(T(-1), -inf), T(2), T(-2), inf, -inf, L::max()}) {
      cases.push_back({op, v, nan});
    }
  }
  cases.push_back({UnOp::Asin, T(1), half_pi});
  cases.push_back({UnOp::Asin, T(-1), -half_pi});
  cases.push_back({UnOp::Acos, T(1), T(0)});
  cases.push_back({UnOp::Acos, T(-1), pi});
  cases.push_back({UnOp::Acos, T(0), half_pi});
  cases.push_back({UnOp::Acos, -T(0), half_pi});
  cases.push_back({UnOp::Atan, inf, half_pi});
  cases.push_back({UnOp::Atan, -inf, -half_pi});
  cases.push_back({UnOp::Atan, L::max(), half_pi});
  cases.push_back({UnOp::Sinh, inf, inf});
  cases.push_back({UnOp::Sinh, -inf, -inf});
  cases.push_back({UnOp::Cosh, inf, inf});
  cases.push_back({UnOp::Cosh, -inf, inf});
  cases.push_back({UnOp::Cosh, T(0), T(1)});
  cases.push_back({UnOp::Cosh, -T(0), T(1)});
  cases.push_back({UnOp::Tanh, inf, T(1)});
  cases.push_back({UnOp::Tanh, -inf, T(-1)});
  cases.push_back({UnOp::InverseSqrt, T(0), inf});
  cases.push_back({UnOp::InverseSqrt, -T(0), -inf});
  cases.push_back({UnOp::InverseSqrt, T(-1), nan});
  cases.push_back({UnOp::InverseSqrt, -L::denorm_min(), nan});
  cases.push_back({UnOp::InverseSqrt, -inf, nan});
  cases.push_back({UnOp::InverseSqrt, inf, T(0)});
  cases.push_back({UnOp::InverseSqrt, T(1), T(1)});
  cases.push_back({UnOp::InverseSqrt, T(4), T(0.5)});
  return cases;
}

}  // namespace

std::vector<float> witnesses_f32(vyre::UnOp op) { return witnesses<float>(op); }
std::vector<double> witnesses_f64(vyre::UnOp op) { return witnesses<double>(op); }
std::vector<SpecialCase<float>> special_cases_f32() { return special_cases<float>(); }
std::vector<SpecialCase<double>> special_cases_f64() { return special_cases<double>(); }

}  // namespace vyre::cuda::math_test
