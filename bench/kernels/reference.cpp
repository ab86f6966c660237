// The host side of the kernel suite: each algorithm once more in plain C++ (same order of float
// operations where the comparison is exact; transcendentals in double, rounded once), and the
// comparison of outputs.
#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "half.hpp"
#include "kernels.hpp"

namespace vyre::bench::kernels {
namespace {

template <typename T>
std::vector<T> as(const std::vector<std::byte>& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

template <typename T>
std::vector<std::byte> bytes_of(const std::vector<T>& v) {
  std::vector<std::byte> out(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

// Element i of a byte buffer holding T (no copy of the buffer: the 256M-element cases are large).
template <typename T>
T at(const std::vector<std::byte>& bytes, std::size_t i) {
  T v;
  std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
  return v;
}

const std::vector<std::byte>& data_of(const KernelCase& kc, std::string_view name) {
  for (const auto& b : kc.buffers)
    if (b.name == name) return b.data;
  throw std::invalid_argument(fmt::format("{} has no buffer '{}'. Fix: keep reference.cpp and kernels.cpp in step.", kc.id, name));
}

float f(double v) { return static_cast<float>(v); }

// SPEC §2's fixed order of a float subgroup reduce: v = op(v, shuffle_xor(v, offset)) for offsets
// 16, 8, 4, 2, 1; every lane ends with the same value.
template <typename Op>
float butterfly(std::vector<float> lanes, Op op) {
  for (std::uint32_t offset = 16; offset > 0; offset >>= 1) {
    std::vector<float> next(32);
    for (std::uint32_t l = 0; l < 32; ++l) next[l] = op(lanes[l], lanes[l ^ offset]);
    lanes = next;
  }
  return lanes[0];
}

// workgroup_reduce of kernels.cpp: butterfly per subgroup, then the partials combined in order.
template <typename Op>
float workgroup_reduce(const std::vector<float>& values, Op op) {
  float acc = 0;
  for (std::size_t s = 0; s * 32 < values.size(); ++s) {
    const float part = butterfly(std::vector<float>(values.begin() + s * 32, values.begin() + s * 32 + 32), op);
    acc = s == 0 ? part : op(acc, part);
  }
  return acc;
}

float add(float a, float b) { return a + b; }
float fmax_spec(float a, float b) { return std::isnan(a) ? b : std::isnan(b) ? a : std::max(a, b); }

std::vector<std::vector<std::byte>> k1(const KernelCase& kc) {
  const auto n = static_cast<std::size_t>(kc.params[0]);
  const auto a = as<float>(data_of(kc, "a"));
  const auto b = as<float>(data_of(kc, "b"));
  std::vector<float> c(n * n);
  for (std::size_t row = 0; row < n; ++row)
    for (std::size_t col = 0; col < n; ++col) {
      float acc = 0;
      for (std::size_t k = 0; k < n; ++k) acc = std::fma(a[row * n + k], b[k * n + col], acc);
      c[row * n + col] = acc;
    }
  return {bytes_of(c)};
}

std::vector<std::vector<std::byte>> k2(const KernelCase& kc) {
  const auto rows = kc.params[0], cols = kc.params[1];
  const auto x = as<float>(data_of(kc, "x"));
  std::vector<float> y(x.size());
  for (std::size_t r = 0; r < rows; ++r) {
    const std::vector<float> row(x.begin() + r * cols, x.begin() + (r + 1) * cols);
    const float m = workgroup_reduce(row, fmax_spec);
    std::vector<float> e(cols);
    for (std::size_t c = 0; c < cols; ++c) e[c] = f(std::exp(static_cast<double>(row[c] - m)));
    const float s = workgroup_reduce(e, add);
    for (std::size_t c = 0; c < cols; ++c) y[r * cols + c] = e[c] / s;
  }
  return {bytes_of(y)};
}

std::vector<std::vector<std::byte>> k3(const KernelCase& kc) {
  const auto rows = kc.params[0], cols = kc.params[1];
  constexpr std::size_t wg = 256;
  const std::size_t per = cols / wg;
  const auto xh = as<std::uint16_t>(data_of(kc, "x"));
  const auto gamma = as<float>(data_of(kc, "gamma"));
  const auto beta = as<float>(data_of(kc, "beta"));
  std::vector<std::uint16_t> y(xh.size());
  for (std::size_t r = 0; r < rows; ++r) {
    auto x = [&](std::size_t col) { return f16_to_f32(xh[r * cols + col]); };
    std::vector<float> s(wg, 0.0f), q(wg, 0.0f);
    for (std::size_t l = 0; l < wg; ++l)
      for (std::size_t j = 0; j < per; ++j) s[l] = s[l] + x(j * wg + l);
    const float mean = workgroup_reduce(s, add) / static_cast<float>(cols);
    for (std::size_t l = 0; l < wg; ++l)
      for (std::size_t j = 0; j < per; ++j) {
        const float d = x(j * wg + l) - mean;
        q[l] = std::fma(d, d, q[l]);
      }
    const float var = workgroup_reduce(q, add) / static_cast<float>(cols);
    const float rstd = f(1.0 / std::sqrt(static_cast<double>(var + 1e-5f)));
    for (std::size_t col = 0; col < cols; ++col) {
      const float d = x(col) - mean;
      y[r * cols + col] = f32_to_f16(std::fma(d * rstd, gamma[col], beta[col]));
    }
  }
  return {bytes_of(y)};
}

std::vector<std::vector<std::byte>> k4(const KernelCase& kc) {
  std::vector<std::uint32_t> bins(256, 0);
  const auto& data = data_of(kc, "data");
  for (std::size_t i = 0; i < data.size() / 4; ++i) ++bins[at<std::uint32_t>(data, i) >> 24];
  return {bytes_of(bins)};
}

std::vector<std::vector<std::byte>> k5(const KernelCase& kc) {
  const auto w = kc.params[0], h = kc.params[1];
  const auto in = as<float>(data_of(kc, "in"));
  std::vector<float> out(in.size());
  for (std::size_t y = 0; y < h; ++y)
    for (std::size_t x = 0; x < w; ++x) {
      const std::size_t i = y * w + x;
      if (x > 0 && x < w - 1 && y > 0 && y < h - 1) {
        const float around = (in[i - w] + in[i + w]) + (in[i - 1] + in[i + 1]);
        out[i] = std::fma(in[i], -4.0f, around);
      } else {
        out[i] = in[i];
      }
    }
  return {bytes_of(out)};
}

std::vector<std::vector<std::byte>> k6(const KernelCase& kc) {
  const auto x = as<float>(data_of(kc, "x"));
  std::vector<float> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = x[i];
    const float t3 = f(std::log(static_cast<double>(1.0f + std::fabs(x[i])))) * f(std::atan(v));
    const float t2 = std::fma(f(std::cos(v)), f(std::tanh(v)), t3);
    out[i] = std::fma(f(std::sin(v)), f(std::exp(static_cast<double>(x[i] * 0.25f))), t2);
  }
  return {bytes_of(out)};
}

std::vector<std::vector<std::byte>> k7(const KernelCase& kc) {
  const auto x = as<double>(data_of(kc, "x"));
  std::vector<double> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const long double v = x[i];
    const auto e = static_cast<double>(std::exp(v));
    const auto l = static_cast<double>(std::log(static_cast<long double>(x[i] + 5.0)));
    out[i] = e * l;
  }
  return {bytes_of(out)};
}

std::vector<std::vector<std::byte>> k8(const KernelCase& kc) {
  const auto data = as<std::uint32_t>(data_of(kc, "data"));
  std::vector<std::uint32_t> out(data.size()), totals(data.size() / 256);
  for (std::size_t t = 0; t < totals.size(); ++t) {
    std::uint32_t acc = 0;
    for (std::size_t l = 0; l < 256; ++l) out[t * 256 + l] = acc += data[t * 256 + l];
    totals[t] = acc;
  }
  return {bytes_of(out), bytes_of(totals)};
}

std::vector<std::vector<std::byte>> k9(const KernelCase& kc) {
  const auto& data = data_of(kc, "data");
  std::uint32_t lo = 0xFFFFFFFFu, hi = 0;
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < data.size() / 4; ++i) {
    const auto v = at<std::uint32_t>(data, i);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  return {bytes_of(std::vector<std::uint32_t>{lo, hi}), bytes_of(std::vector<std::uint64_t>{sum})};
}

std::vector<std::vector<std::byte>> k10(const KernelCase& kc) {
  auto data = as<std::uint32_t>(data_of(kc, "data"));
  std::sort(data.begin(), data.end());
  return {bytes_of(data)};
}

std::vector<std::vector<std::byte>> k11(const KernelCase& kc) {
  const auto c = kc.params[1];
  auto h = as<std::uint64_t>(data_of(kc, "keys"));
  for (auto& v : h)
    for (std::uint64_t round = 0; round < kc.params[2]; ++round) {
      v ^= std::rotl(v, 23);
      const unsigned __int128 product = static_cast<unsigned __int128>(v) * c;
      v = static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64) ^ round;
    }
  return {bytes_of(h)};
}

std::vector<std::vector<std::byte>> k12(const KernelCase& kc) {
  const float a = at<float>(data_of(kc, "alpha"), 0);
  const auto& x = data_of(kc, "x");
  const auto& y = data_of(kc, "y");
  std::vector<std::byte> z(x.size());
  for (std::size_t i = 0; i < x.size() / 4; ++i) {
    const float v = std::fma(a, at<float>(x, i), at<float>(y, i));
    std::memcpy(z.data() + i * 4, &v, 4);
  }
  return {std::move(z)};
}

// One function at one point: long double, rounded to f32 (correctly rounded for sqrt and the
// reciprocal, which must be exact).
float k13_point(const std::string& fn, float x, const KernelCase& kc) {
  if (fn == "sqrt") return std::sqrt(x);
  if (fn == "reciprocal") return 1.0f / x;
  const long double v = x;
  long double r = 0;
  if (fn == "sin") r = std::sin(v);
  else if (fn == "cos") r = std::cos(v);
  else if (fn == "tan") r = std::tan(v);
  else if (fn == "exp") r = std::exp(v);
  else if (fn == "exp2") r = std::exp2(v);
  else if (fn == "log") r = std::log(v);
  else if (fn == "log2") r = std::log2(v);
  else if (fn == "tanh") r = std::tanh(v);
  else if (fn == "atan") r = std::atan(v);
  else if (fn == "asin") r = std::asin(v);
  else if (fn == "acos") r = std::acos(v);
  else if (fn == "sinh") r = std::sinh(v);
  else if (fn == "cosh") r = std::cosh(v);
  else if (fn == "inverse_sqrt") r = 1.0L / std::sqrt(v);
  else throw std::invalid_argument(fmt::format("no host computation for {}. Fix: add it to reference.cpp.", kc.id));
  return static_cast<float>(r);
}

// out[i] = max over k < kK13Evaluations of f(x[i] * (1 - k/256)), the scaled point rounded to f32
// as on the device (the max of correctly rounded values is the correctly rounded max).
std::vector<std::vector<std::byte>> k13(const KernelCase& kc) {
  const std::string fn = kc.id.substr(4);
  const auto x = as<float>(data_of(kc, "x"));
  std::vector<float> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    float m = k13_point(fn, x[i], kc);
    for (std::uint32_t k = 1; k < kK13Evaluations; ++k)
      m = std::max(m, k13_point(fn, x[i] * (1.0f - static_cast<float>(k) * 0.00390625f), kc));
    out[i] = m;
  }
  return {bytes_of(out)};
}

// Ordered-bit position of a float's bits: adjacent floats differ by 1, -0 and +0 by 1.
std::int64_t ordered(std::uint64_t bits, unsigned width) {
  const std::uint64_t sign = 1ull << (width - 1);
  const std::uint64_t mag = bits & (sign - 1);
  return (bits & sign) ? -static_cast<std::int64_t>(mag) - 1 : static_cast<std::int64_t>(mag);
}

struct FloatView {
  double value;
  std::uint64_t bits;
  bool nan, inf;
};

FloatView view(Type t, const std::byte* p) {
  FloatView v{};
  if (t == Type::F32) {
    float x;
    std::memcpy(&x, p, 4);
    v = {x, std::bit_cast<std::uint32_t>(x), std::isnan(x), std::isinf(x)};
  } else if (t == Type::F64) {
    double x;
    std::memcpy(&x, p, 8);
    v = {x, std::bit_cast<std::uint64_t>(x), std::isnan(x), std::isinf(x)};
  } else {  // f16
    std::uint16_t h;
    std::memcpy(&h, p, 2);
    const float x = f16_to_f32(h);
    v = {x, h, std::isnan(x), std::isinf(x)};
  }
  return v;
}

std::string show(Type t, const std::byte* p) {
  const std::uint32_t size = vyre::byte_size(t);
  std::uint64_t bits = 0;
  std::memcpy(&bits, p, size);
  if (!vyre::is_float(t)) return fmt::format("{}", bits);
  return fmt::format("{:.9g} (0x{:0{}x})", view(t, p).value, bits, size * 2);
}

}  // namespace

std::vector<std::vector<std::byte>> host_outputs(const KernelCase& kc) {
  const std::string& id = kc.id;
  if (id == "K1") return k1(kc);
  if (id == "K2") return k2(kc);
  if (id == "K3") return k3(kc);
  if (id == "K4") return k4(kc);
  if (id == "K5") return k5(kc);
  if (id == "K6") return k6(kc);
  if (id == "K7") return k7(kc);
  if (id == "K8") return k8(kc);
  if (id == "K9") return k9(kc);
  if (id == "K10") return k10(kc);
  if (id == "K11") return k11(kc);
  if (id == "K12") return k12(kc);
  if (id.starts_with("K13-")) return k13(kc);
  throw std::invalid_argument(fmt::format("no host computation for kernel case '{}'. Fix: add it to reference.cpp.", id));
}

Comparison compare(const KernelBuffer& b, std::span<const std::byte> expected, std::span<const std::byte> actual) {
  Comparison c;
  const std::uint32_t size = vyre::byte_size(b.element);
  if (expected.size() != actual.size()) {
    c.ok = false;
    c.mismatches = 1;
    c.first_failure = fmt::format("{}: {} bytes, expected {}", b.name, actual.size(), expected.size());
    return c;
  }
  const Tolerance& tol = b.tolerance;
  const bool float_compare = tol.kind != Compare::Exact && vyre::is_float(b.element);
  for (std::size_t i = 0; i * size < expected.size(); ++i) {
    const std::byte* e = expected.data() + i * size;
    const std::byte* a = actual.data() + i * size;
    bool ok = std::memcmp(e, a, size) == 0;
    if (!ok && float_compare) {
      const FloatView ev = view(b.element, e), av = view(b.element, a);
      if (ev.nan || av.nan || ev.inf || av.inf) {
        ok = ev.nan && av.nan;
      } else if (tol.kind == Compare::Ulp) {
        const unsigned width = size * 8;
        const double d = std::fabs(static_cast<double>(ordered(ev.bits, width) - ordered(av.bits, width)));
        // ±0 are one step apart on this scale but equal as values.
        const double distance = (ev.value == 0 && av.value == 0) ? 0 : d;
        c.max_ulp = std::max(c.max_ulp, distance);
        ok = distance <= static_cast<double>(tol.ulp);
      } else {
        const double d = std::fabs(ev.value - av.value);
        c.max_abs = std::max(c.max_abs, d);
        ok = d <= tol.abs + tol.rel * std::fabs(ev.value);
      }
    }
    if (!ok) {
      if (c.mismatches++ == 0)
        c.first_failure = fmt::format("{}[{}]: expected {}, got {}", b.name, i, show(b.element, e), show(b.element, a));
      c.ok = false;
    }
  }
  return c;
}

}  // namespace vyre::bench::kernels
