// The vyre programs of the kernel suite, written the way a user writes them with the builder: loops
// where the algorithm loops, lets for named values, the obvious indexing. Nothing here is shaped to
// suit the CUDA emitter (bench/NOTES.md, "Kernel suite").
#include "kernels.hpp"

#include <fmt/core.h>

#include <bit>
#include <cstring>
#include <stdexcept>

#include "half.hpp"
#include "vyre/builder.hpp"

namespace vyre::bench::kernels {

using vyre::Access;
using vyre::Type;
using namespace vyre::dsl;

namespace {

// ---- inputs ----------------------------------------------------------------------------------------

// False while make_case builds only the program (Inputs::None): the data helpers return nothing.
thread_local bool generate_data = true;

std::uint64_t next(std::uint64_t& state) {  // splitmix64
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint64_t seed_of(std::uint64_t seed, std::string_view id) {
  std::uint64_t h = seed ^ 0xcbf29ce484222325ull;
  for (char c : id) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return h;
}

template <typename T>
std::vector<std::byte> bytes_of(const std::vector<T>& v) {
  std::vector<std::byte> out(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

// n values of T from gen(), straight into bytes (one pass, no intermediate vector).
template <typename T, typename Gen>
std::vector<std::byte> fill(std::uint64_t n, Gen gen) {
  if (!generate_data) return {};
  std::vector<std::byte> out(n * sizeof(T));
  for (std::uint64_t i = 0; i < n; ++i) {
    const T v = gen();
    std::memcpy(out.data() + i * sizeof(T), &v, sizeof(T));
  }
  return out;
}

std::vector<std::byte> words(std::uint64_t n, std::uint64_t state) {
  return fill<std::uint32_t>(n, [&] { return static_cast<std::uint32_t>(next(state) >> 32); });
}

std::vector<std::byte> words64(std::uint64_t n, std::uint64_t state) {
  return fill<std::uint64_t>(n, [&] { return next(state); });
}

// Uniform in [lo, hi) with 24 random bits.
std::vector<std::byte> floats(std::uint64_t n, float lo, float hi, std::uint64_t state) {
  return fill<float>(n, [&] { return lo + (hi - lo) * static_cast<float>(next(state) >> 40) * 0x1p-24f; });
}

std::vector<std::byte> doubles(std::uint64_t n, double lo, double hi, std::uint64_t state) {
  return fill<double>(n, [&] { return lo + (hi - lo) * static_cast<double>(next(state) >> 11) * 0x1p-53; });
}

std::vector<std::byte> halves(std::uint64_t n, float lo, float hi, std::uint64_t state) {
  return fill<std::uint16_t>(
      n, [&] { return f32_to_f16(lo + (hi - lo) * static_cast<float>(next(state) >> 40) * 0x1p-24f); });
}

KernelBuffer input(std::string name, Type element, std::vector<std::byte> data, Access access = Access::Read) {
  KernelBuffer b;
  b.name = std::move(name);
  b.access = access;
  b.element = element;
  b.data = std::move(data);
  return b;
}

KernelBuffer output(std::string name, Type element, std::uint64_t count, Tolerance tolerance, bool reset = false) {
  KernelBuffer b;
  b.name = std::move(name);
  b.access = Access::Output;
  b.element = element;
  if (generate_data) b.data.assign(count * vyre::byte_size(element), std::byte{0});
  b.tolerance = std::move(tolerance);
  b.reset = reset;
  return b;
}

Tolerance exact(std::string why) { return Tolerance{Compare::Exact, 0, 0, 0, std::move(why)}; }
Tolerance ulps(std::uint64_t n, std::string why) { return Tolerance{Compare::Ulp, n, 0, 0, std::move(why)}; }
Tolerance close(double abs, double rel, std::string why) {
  return Tolerance{Compare::Close, 0, abs, rel, std::move(why)};
}

// The workgroup-wide sum (or max) of `value` in the way a user writes it with subgroups: reduce
// within each subgroup, lane 0 writes its subgroup's figure to workgroup memory `partial`, and every
// invocation combines the partials in order. The barrier in front keeps an earlier use of
// `partial` from racing with the new writes.
Expr workgroup_reduce(ProgramBuilder& b, const std::string& name, ReduceOp op, Expr value,
                      std::uint32_t subgroups) {
  auto r = b.let(name + "_sg", reduce(op, std::move(value)));
  b.barrier();
  b.if_(eq(subgroup_lane(), u32(0)), [&] { b.store(Buf{"partial"}, local_id(0) / u32(32), r); });
  b.barrier();
  b.let(name, load("partial", u32(0)));
  b.loop(name + "_w", u32(1), u32(subgroups), [&](Expr w) {
    Expr p = load("partial", w);
    b.assign(name, op == ReduceOp::Max ? max(var(name), p) : var(name) + p);
  });
  return var(name);
}

// ---- K1: tiled f32 matmul -------------------------------------------------------------------------

constexpr std::uint32_t kTile = 16;

KernelCase k1(Size size, std::uint64_t seed) {
  const std::uint32_t n = size == Size::Full ? 2048 : 64;
  KernelCase kc;
  kc.title = fmt::format("tiled f32 matmul {}^3, {}x{} tiles in workgroup memory, fma", n, kTile, kTile);
  ProgramBuilder b;
  b.workgroup(kTile, kTile);
  auto a = b.buffer("a", Access::Read, Type::F32, n * n);
  auto bm = b.buffer("b", Access::Read, Type::F32, n * n);
  auto c = b.buffer("c", Access::Output, Type::F32, n * n);
  auto as = b.buffer("a_tile", Access::Workgroup, Type::F32, kTile * kTile);
  auto bs = b.buffer("b_tile", Access::Workgroup, Type::F32, kTile * kTile);
  auto tx = b.let("tx", local_id(0));
  auto ty = b.let("ty", local_id(1));
  auto row = b.let("row", workgroup_id(1) * u32(kTile) + ty);
  auto col = b.let("col", workgroup_id(0) * u32(kTile) + tx);
  b.let("acc", f32(0.0f));
  b.loop("t", u32(0), u32(n / kTile), [&](Expr t) {
    b.store(as, ty * u32(kTile) + tx, a[row * u32(n) + t * u32(kTile) + tx]);
    b.store(bs, ty * u32(kTile) + tx, bm[(t * u32(kTile) + ty) * u32(n) + col]);
    b.barrier();
    b.loop("k", u32(0), u32(kTile), [&](Expr k) {
      b.assign("acc", fma(as[ty * u32(kTile) + k], bs[k * u32(kTile) + tx], var("acc")));
    });
    b.barrier();
  });
  b.store(c, row * u32(n) + col, var("acc"));
  kc.program = b.build();
  kc.grid = {n / kTile, n / kTile, 1};
  kc.params = {n};
  const std::uint64_t nn = std::uint64_t{n} * n;
  kc.buffers.push_back(input("a", Type::F32, floats(nn, -1.0f, 1.0f, seed_of(seed, "K1a"))));
  kc.buffers.push_back(input("b", Type::F32, floats(nn, -1.0f, 1.0f, seed_of(seed, "K1b"))));
  kc.buffers.push_back(output("c", Type::F32, nn, exact("fma only, in the same order on both sides")));
  kc.bytes_moved = 3 * nn * 4;
  kc.elements = nn;
  return kc;
}

// ---- K2: row softmax ------------------------------------------------------------------------------

constexpr std::uint32_t kSoftmaxCols = 256;

KernelCase k2(Size size, std::uint64_t seed) {
  const std::uint32_t rows = size == Size::Full ? 65536 : 16;
  const std::uint32_t cols = kSoftmaxCols;
  KernelCase kc;
  kc.title = fmt::format("row softmax {} x {} f32, workgroup reductions", rows, cols);
  ProgramBuilder b;
  b.workgroup(cols);
  auto x = b.buffer("x", Access::Read, Type::F32, rows * cols);
  auto y = b.buffer("y", Access::Output, Type::F32, rows * cols);
  b.buffer("partial", Access::Workgroup, Type::F32, cols / 32);
  auto i = b.let("i", workgroup_id(0) * u32(cols) + local_id(0));
  auto v = b.let("v", x[i]);
  auto m = workgroup_reduce(b, "row_max", ReduceOp::Max, v, cols / 32);
  auto e = b.let("e", un(UnOp::Exp, v - m));
  auto s = workgroup_reduce(b, "row_sum", ReduceOp::Add, e, cols / 32);
  b.store(y, i, e / s);
  kc.program = b.build();
  kc.grid = {rows, 1, 1};
  kc.params = {rows, cols};
  const std::uint64_t n = std::uint64_t{rows} * cols;
  kc.buffers.push_back(input("x", Type::F32, floats(n, -8.0f, 8.0f, seed_of(seed, "K2"))));
  kc.buffers.push_back(output(
      "y", Type::F32, n,
      ulps(24, "exp: 2 ULP (SPEC §5) + 2 (CUDA expf); the positive sum of 256 such terms over 8 levels adds "
               "at most 4 + 8 x 0.5 per side; the division 0.5 each; 24 covers the sum")));
  kc.bytes_moved = 2 * n * 4;
  kc.elements = n;
  return kc;
}

// ---- K3: layer norm over f16 storage ---------------------------------------------------------------

constexpr std::uint32_t kNormWorkgroup = 256;

KernelCase k3(Size size, std::uint64_t seed) {
  const std::uint32_t rows = size == Size::Full ? 65536 : 8;
  const std::uint32_t cols = size == Size::Full ? 1024 : 512;
  const std::uint32_t per = cols / kNormWorkgroup;
  KernelCase kc;
  kc.title = fmt::format("layer norm {} x {}, f16 in and out, f32 gamma/beta and math", rows, cols);
  ProgramBuilder b;
  b.workgroup(kNormWorkgroup);
  auto x = b.buffer("x", Access::Read, Type::F16, rows * cols);
  auto gamma = b.buffer("gamma", Access::Read, Type::F32, cols);
  auto beta = b.buffer("beta", Access::Read, Type::F32, cols);
  auto y = b.buffer("y", Access::Output, Type::F16, rows * cols);
  b.buffer("partial", Access::Workgroup, Type::F32, kNormWorkgroup / 32);
  auto lid = b.let("lid", local_id(0));
  auto base = b.let("base", workgroup_id(0) * u32(cols));
  b.let("s", f32(0.0f));
  b.loop("j", u32(0), u32(per), [&](Expr j) { b.assign("s", var("s") + x[base + j * u32(kNormWorkgroup) + lid]); });
  auto total = workgroup_reduce(b, "total", ReduceOp::Add, var("s"), kNormWorkgroup / 32);
  auto mean = b.let("mean", total / f32(static_cast<float>(cols)));
  b.let("q", f32(0.0f));
  b.loop("j2", u32(0), u32(per), [&](Expr j) {
    auto d = b.let("d", x[base + j * u32(kNormWorkgroup) + lid] - mean);
    b.assign("q", fma(d, d, var("q")));
  });
  auto sq = workgroup_reduce(b, "sq", ReduceOp::Add, var("q"), kNormWorkgroup / 32);
  auto rstd = b.let("rstd", un(UnOp::InverseSqrt, sq / f32(static_cast<float>(cols)) + f32(1e-5f)));
  b.loop("j3", u32(0), u32(per), [&](Expr j) {
    auto col = b.let("col", j * u32(kNormWorkgroup) + lid);
    auto d = b.let("d3", x[base + col] - mean);
    b.store(y, base + col, fma(d * rstd, gamma[col], beta[col]));
  });
  kc.program = b.build();
  kc.grid = {rows, 1, 1};
  kc.params = {rows, cols};
  const std::uint64_t n = std::uint64_t{rows} * cols;
  kc.buffers.push_back(input("x", Type::F16, halves(n, -4.0f, 4.0f, seed_of(seed, "K3x"))));
  kc.buffers.push_back(input("gamma", Type::F32, floats(cols, 0.5f, 1.5f, seed_of(seed, "K3g"))));
  kc.buffers.push_back(input("beta", Type::F32, floats(cols, -0.5f, 0.5f, seed_of(seed, "K3b"))));
  kc.buffers.push_back(output("y", Type::F16, n,
                              ulps(1, "f16 ULPs: everything up to rstd is add/mul/fma in one order; "
                                      "inverse_sqrt is 2 ULP (SPEC §5) and rsqrtf 2 ULP, a few f32 ULPs that "
                                      "can move the f16 rounding by one")));
  kc.bytes_moved = 2 * n * 2 + 2 * std::uint64_t{cols} * 4;
  kc.elements = n;
  return kc;
}

// ---- K4: histogram with workgroup atomics ------------------------------------------------------------

constexpr std::uint32_t kBins = 256;

KernelCase k4(Size size, std::uint32_t multiprocessors, std::uint64_t seed) {
  const std::uint32_t n = size == Size::Full ? (256u << 20) : 10000;
  const std::uint32_t groups = size == Size::Full ? multiprocessors * 8 : 3;
  KernelCase kc;
  kc.title = fmt::format("histogram of {} u32 (top byte), {} bins, workgroup atomics", n, kBins);
  ProgramBuilder b;
  b.workgroup(kBins);
  auto data = b.buffer("data", Access::Read, Type::U32, n);
  auto bins = b.buffer("bins", Access::Output, Type::U32, kBins);
  auto local = b.buffer("local_bins", Access::Workgroup, Type::U32, kBins);
  auto lid = b.let("lid", local_id(0));
  auto gid = b.let("gid", invocation_id(0));
  auto stride = b.let("stride", num_workgroups(0) * u32(kBins));
  auto trips = b.let("trips", (u32(n) + stride - u32(1)) / stride);
  b.loop("k", u32(0), trips, [&](Expr k) {
    auto idx = b.let("idx", k * stride + gid);
    b.if_(lt(idx, u32(n)), [&] {
      b.let("old", atomic(AtomicOp::Add, local.name, data[idx] >> u32(24), u32(1)));
    });
  });
  b.barrier();
  b.let("previous", atomic(AtomicOp::Add, bins.name, lid, local[lid]));
  kc.program = b.build();
  kc.grid = {groups, 1, 1};
  kc.params = {n};
  kc.buffers.push_back(input("data", Type::U32, words(n, seed_of(seed, "K4"))));
  kc.buffers.push_back(output("bins", Type::U32, kBins, exact("integer counts"), true));
  kc.bytes_moved = std::uint64_t{n} * 4 + kBins * 4;
  kc.elements = n;
  return kc;
}

// ---- K5: 5-point stencil ------------------------------------------------------------------------------

KernelCase k5(Size size, std::uint64_t seed) {
  const std::uint32_t w = size == Size::Full ? 8192 : 64;
  const std::uint32_t h = size == Size::Full ? 8192 : 48;
  KernelCase kc;
  kc.title = fmt::format("{}x{} f32 5-point stencil (Laplacian; the border copies the input)", w, h);
  ProgramBuilder b;
  b.workgroup(32, 8);
  auto in = b.buffer("in", Access::Read, Type::F32, w * h);
  auto out = b.buffer("out", Access::Output, Type::F32, w * h);
  auto x = b.let("x", invocation_id(0));
  auto y = b.let("y", invocation_id(1));
  auto i = b.let("i", y * u32(w) + x);
  auto inside = logical_and(logical_and(gt(x, u32(0)), lt(x, u32(w - 1))), logical_and(gt(y, u32(0)), lt(y, u32(h - 1))));
  b.if_(
      inside,
      [&] {
        auto around = b.let("around", (in[i - u32(w)] + in[i + u32(w)]) + (in[i - u32(1)] + in[i + u32(1)]));
        b.store(out, i, fma(in[i], f32(-4.0f), around));
      },
      [&] { b.store(out, i, in[i]); });
  kc.program = b.build();
  kc.grid = {w / 32, h / 8, 1};
  kc.params = {w, h};
  const std::uint64_t n = std::uint64_t{w} * h;
  kc.buffers.push_back(input("in", Type::F32, floats(n, -1.0f, 1.0f, seed_of(seed, "K5"))));
  kc.buffers.push_back(output("out", Type::F32, n, exact("adds and one fma in the same order")));
  kc.bytes_moved = 2 * n * 4;
  kc.elements = n;
  return kc;
}

// ---- K6: f32 transcendental mix -------------------------------------------------------------------------

KernelCase k6(Size size, std::uint64_t seed) {
  const std::uint32_t n = size == Size::Full ? (64u << 20) : 4096;
  KernelCase kc;
  kc.title = fmt::format("{} f32: sin(x)exp(x/4) + cos(x)tanh(x) + log(1+|x|)atan(x)", n);
  ProgramBuilder b;
  b.workgroup(256);
  auto xs = b.buffer("x", Access::Read, Type::F32, n);
  auto out = b.buffer("out", Access::Output, Type::F32, n);
  auto i = b.let("i", invocation_id(0));
  auto x = b.let("xv", xs[i]);
  auto t3 = b.let("t3", un(UnOp::Log, f32(1.0f) + un(UnOp::Abs, x)) * un(UnOp::Atan, x));
  auto t2 = b.let("t2", fma(un(UnOp::Cos, x), un(UnOp::Tanh, x), t3));
  b.store(out, i, fma(un(UnOp::Sin, x), un(UnOp::Exp, x * f32(0.25f)), t2));
  kc.program = b.build();
  kc.grid = {n / 256, 1, 1};
  kc.explicit_grid = false;
  kc.params = {n};
  kc.buffers.push_back(input("x", Type::F32, floats(n, -4.0f, 4.0f, seed_of(seed, "K6"))));
  kc.buffers.push_back(output("out", Type::F32, n,
                              close(0x1p-16, 0, "terms up to ~3 in size, each function within SPEC §5 + the "
                                                "CUDA bound (<= 9 ULP of 2^1, 2^-21 each); three terms and "
                                                "the roundings stay below 2^-16; terms can cancel, so absolute")));
  kc.bytes_moved = std::uint64_t{n} * 8;
  kc.elements = n;
  return kc;
}

// ---- K7: f64 transcendentals --------------------------------------------------------------------------------

KernelCase k7(Size size, std::uint64_t seed) {
  const std::uint32_t n = size == Size::Full ? (32u << 20) : 4096;
  KernelCase kc;
  kc.title = fmt::format("{} f64: exp(x) * log(x + 5)", n);
  ProgramBuilder b;
  b.workgroup(256);
  auto xs = b.buffer("x", Access::Read, Type::F64, n);
  auto out = b.buffer("out", Access::Output, Type::F64, n);
  auto i = b.let("i", invocation_id(0));
  auto x = b.let("xv", xs[i]);
  b.store(out, i, un(UnOp::Exp, x) * un(UnOp::Log, x + f64(5.0)));
  kc.program = b.build();
  kc.grid = {n / 256, 1, 1};
  kc.explicit_grid = false;
  kc.params = {n};
  kc.buffers.push_back(input("x", Type::F64, doubles(n, -4.0, 4.0, seed_of(seed, "K7"))));
  kc.buffers.push_back(output("out", Type::F64, n,
                              ulps(16, "exp and log: 2 ULP each (SPEC §5) + 1 each (CUDA exp, log); the "
                                      "product of positives adds their relative errors and a rounding each side (7), doubled for the binade")));
  kc.bytes_moved = std::uint64_t{n} * 16;
  kc.elements = n;
  return kc;
}

// ---- K8: tile prefix scan with subgroup shuffles ----------------------------------------------------------------

constexpr std::uint32_t kScanWorkgroup = 256;

// Inclusive scan of `name` across the 32 lanes of each subgroup (Hillis-Steele by shuffles).
void subgroup_scan(ProgramBuilder& b, const std::string& name) {
  b.loop(name + "_step", u32(0), u32(5), [&](Expr step) {
    auto offset = b.let(name + "_off", u32(1) << step);
    auto from = b.let(name + "_from", shuffle(var(name), subgroup_lane() - offset));
    b.if_(ge(subgroup_lane(), offset), [&] { b.assign(name, var(name) + from); });
  });
}

KernelCase k8(Size size, std::uint64_t seed) {
  const std::uint32_t n = size == Size::Full ? (64u << 20) : 4096;
  const std::uint32_t tiles = n / kScanWorkgroup;
  constexpr std::uint32_t subgroups = kScanWorkgroup / 32;
  KernelCase kc;
  kc.title = fmt::format("inclusive scan of {} u32 in tiles of {} (subgroup shuffles) + tile totals", n,
                         kScanWorkgroup);
  ProgramBuilder b;
  b.workgroup(kScanWorkgroup);
  auto data = b.buffer("data", Access::Read, Type::U32, n);
  auto out = b.buffer("out", Access::Output, Type::U32, n);
  auto totals = b.buffer("tile_totals", Access::Output, Type::U32, tiles);
  auto sums = b.buffer("subgroup_sums", Access::Workgroup, Type::U32, subgroups);
  auto lid = b.let("lid", local_id(0));
  auto gid = b.let("gid", invocation_id(0));
  auto lane = b.let("lane", subgroup_lane());
  auto sg = b.let("sg", lid / u32(32));
  b.let("v", data[gid]);
  subgroup_scan(b, "v");
  b.if_(eq(lane, u32(31)), [&] { b.store(sums, sg, var("v")); });
  b.barrier();
  b.if_(eq(sg, u32(0)), [&] {
    b.let("w", select(lt(lane, u32(subgroups)), sums[lane], u32(0)));
    subgroup_scan(b, "w");
    b.if_(lt(lane, u32(subgroups)), [&] { b.store(sums, lane, var("w")); });
  });
  b.barrier();
  auto prefix = b.let("prefix", select(gt(sg, u32(0)), sums[sg - u32(1)], u32(0)));
  auto result = b.let("result", var("v") + prefix);
  b.store(out, gid, result);
  b.if_(eq(lid, u32(kScanWorkgroup - 1)), [&] { b.store(totals, workgroup_id(0), result); });
  kc.program = b.build();
  kc.grid = {tiles, 1, 1};
  kc.params = {n};
  kc.buffers.push_back(input("data", Type::U32, words(n, seed_of(seed, "K8"))));
  kc.buffers.push_back(output("out", Type::U32, n, exact("wrapping u32 sums")));
  kc.buffers.push_back(output("tile_totals", Type::U32, tiles, exact("wrapping u32 sums")));
  kc.bytes_moved = std::uint64_t{n} * 8 + std::uint64_t{tiles} * 4;
  kc.elements = n;
  return kc;
}

// ---- K9: min, max and sum with subgroup reduce + atomics ---------------------------------------------------------

KernelCase k9(Size size, std::uint32_t multiprocessors, std::uint64_t seed) {
  const std::uint32_t n = size == Size::Full ? (256u << 20) : 10000;
  const std::uint32_t groups = size == Size::Full ? multiprocessors * 8 : 3;
  KernelCase kc;
  kc.title = fmt::format("min, max and u64 sum of {} u32: subgroup reduce + one atomic each per subgroup", n);
  ProgramBuilder b;
  b.workgroup(256);
  auto data = b.buffer("data", Access::Read, Type::U32, n);
  auto minmax = b.buffer("minmax", Access::ReadWrite, Type::U32, 2);
  auto total = b.buffer("total", Access::Output, Type::U64, 1);
  auto gid = b.let("gid", invocation_id(0));
  auto stride = b.let("stride", num_workgroups(0) * u32(256));
  auto trips = b.let("trips", (u32(n) + stride - u32(1)) / stride);
  b.let("lo", u32(0xFFFFFFFFu));
  b.let("hi", u32(0));
  b.let("sum", u64(0));
  b.loop("k", u32(0), trips, [&](Expr k) {
    auto idx = b.let("idx", k * stride + gid);
    b.if_(lt(idx, u32(n)), [&] {
      auto v = b.let("v", data[idx]);
      b.assign("lo", min(var("lo"), v));
      b.assign("hi", max(var("hi"), v));
      b.assign("sum", var("sum") + cast(Type::U64, v));
    });
  });
  auto lo = b.let("sg_lo", reduce(ReduceOp::Min, var("lo")));
  auto hi = b.let("sg_hi", reduce(ReduceOp::Max, var("hi")));
  auto sum = b.let("sg_sum", reduce(ReduceOp::Add, var("sum")));
  b.if_(eq(subgroup_lane(), u32(0)), [&] {
    b.let("old_lo", atomic(AtomicOp::Min, minmax.name, u32(0), lo));
    b.let("old_hi", atomic(AtomicOp::Max, minmax.name, u32(1), hi));
    b.let("old_sum", atomic(AtomicOp::Add, total.name, u32(0), sum));
  });
  kc.program = b.build();
  kc.grid = {groups, 1, 1};
  kc.params = {n};
  kc.buffers.push_back(input("data", Type::U32, words(n, seed_of(seed, "K9"))));
  KernelBuffer mm = input("minmax", Type::U32, bytes_of(std::vector<std::uint32_t>{0xFFFFFFFFu, 0u}), Access::ReadWrite);
  mm.reset = true;
  mm.tolerance = exact("integer min and max");
  kc.buffers.push_back(std::move(mm));
  kc.buffers.push_back(output("total", Type::U64, 1, exact("integer sum"), true));
  kc.bytes_moved = std::uint64_t{n} * 4 + 16;
  kc.elements = n;
  return kc;
}

// ---- K10: bitonic sort with grid_sync ------------------------------------------------------------------------------

KernelCase k10(Size size, std::uint32_t multiprocessors, std::uint64_t seed) {
  const std::uint32_t log_n = size == Size::Full ? 24 : 10;
  const std::uint32_t n = 1u << log_n;
  const std::uint32_t groups = size == Size::Full ? multiprocessors * 2 : 2;
  KernelCase kc;
  kc.title = fmt::format("bitonic sort of {} u32 in place, one grid_sync per merge step ({} steps)", n,
                         log_n * (log_n + 1) / 2);
  ProgramBuilder b;
  b.workgroup(256);
  auto data = b.buffer("data", Access::ReadWrite, Type::U32, n);
  const std::uint32_t half = n / 2;
  bool first = true;
  // The network is built in C++: one phase (a block, then a grid_sync) per (k, j) step.
  for (std::uint32_t k = 2; k <= n; k <<= 1) {
    for (std::uint32_t j = k >> 1; j > 0; j >>= 1) {
      if (!first) b.grid_sync();
      first = false;
      const std::uint32_t log_j = static_cast<std::uint32_t>(std::countr_zero(j));
      b.block([&] {
        auto gid = b.let("gid", invocation_id(0));
        auto stride = b.let("stride", num_workgroups(0) * u32(256));
        auto trips = b.let("trips", (u32(half) + stride - u32(1)) / stride);
        b.loop("r", u32(0), trips, [&](Expr r) {
          auto t = b.let("t", r * stride + gid);
          b.if_(lt(t, u32(half)), [&] {
            auto lo = b.let("lo", ((t >> u32(log_j)) << u32(log_j + 1)) | (t & u32(j - 1)));
            auto hi = b.let("hi", lo | u32(j));
            auto a = b.let("a", data[lo]);
            auto c = b.let("c", data[hi]);
            auto up = b.let("up", eq(lo & u32(k), u32(0)));
            b.if_(select(up, gt(a, c), lt(a, c)), [&] {
              b.store(data, lo, c);
              b.store(data, hi, a);
            });
          });
        });
      });
    }
  }
  kc.program = b.build();
  kc.grid = {groups, 1, 1};
  kc.params = {n};
  KernelBuffer d = input("data", Type::U32, words(n, seed_of(seed, "K10")), Access::ReadWrite);
  d.reset = true;
  d.tolerance = exact("a permutation of integers");
  kc.buffers.push_back(std::move(d));
  kc.bytes_moved = std::uint64_t{n} * 8 * (log_n * (log_n + 1) / 2);
  kc.elements = n;
  return kc;
}

// ---- K11: 64-bit hash ------------------------------------------------------------------------------------------------

constexpr std::uint64_t kHashMultiplier = 0x9E3779B97F4A7C15ull;
constexpr std::uint32_t kHashRounds = 8;

KernelCase k11(Size size, std::uint64_t seed) {
  const std::uint32_t n = size == Size::Full ? (32u << 20) : 4096;
  KernelCase kc;
  kc.title = fmt::format("{} u64 keys, {} rounds of h ^= rotl(h, 23); h = lo(h*C) ^ mul_high(h, C) ^ round", n,
                         kHashRounds);
  ProgramBuilder b;
  b.workgroup(256);
  auto keys = b.buffer("keys", Access::Read, Type::U64, n);
  auto out = b.buffer("hashes", Access::Output, Type::U64, n);
  auto i = b.let("i", invocation_id(0));
  b.let("h", keys[i]);
  b.loop("round", u32(0), u32(kHashRounds), [&](Expr round) {
    b.assign("h", var("h") ^ bin(BinOp::Rotl, var("h"), u32(23)));
    b.assign("h", (var("h") * u64(kHashMultiplier)) ^ bin(BinOp::MulHigh, var("h"), u64(kHashMultiplier)) ^
                      cast(Type::U64, round));
  });
  b.store(out, i, var("h"));
  kc.program = b.build();
  kc.grid = {n / 256, 1, 1};
  kc.explicit_grid = false;
  kc.params = {n, kHashMultiplier, kHashRounds};
  kc.buffers.push_back(input("keys", Type::U64, words64(n, seed_of(seed, "K11"))));
  kc.buffers.push_back(output("hashes", Type::U64, n, exact("integer arithmetic")));
  kc.bytes_moved = std::uint64_t{n} * 16;
  kc.elements = n;
  return kc;
}

// ---- K12: axpy --------------------------------------------------------------------------------------------------------------

KernelCase k12(Size size, std::uint64_t seed) {
  const std::uint32_t n = size == Size::Full ? (256u << 20) : 4096;
  KernelCase kc;
  kc.title = fmt::format("axpy over {} f32: z = fma(a, x, y)", n);
  ProgramBuilder b;
  b.workgroup(256);
  auto alpha = b.buffer("alpha", Access::Uniform, Type::F32, 1);
  auto x = b.buffer("x", Access::Read, Type::F32, n);
  auto y = b.buffer("y", Access::Read, Type::F32, n);
  auto z = b.buffer("z", Access::Output, Type::F32, n);
  auto i = b.let("i", invocation_id(0));
  b.store(z, i, fma(alpha[u32(0)], x[i], y[i]));
  kc.program = b.build();
  kc.grid = {n / 256, 1, 1};
  kc.explicit_grid = false;
  const float a = 1.7f;
  kc.params = {n, std::bit_cast<std::uint32_t>(a)};
  kc.buffers.push_back(input("alpha", Type::F32, bytes_of(std::vector<float>{a}), Access::Uniform));
  kc.buffers.push_back(input("x", Type::F32, floats(n, -1.0f, 1.0f, seed_of(seed, "K12x"))));
  kc.buffers.push_back(input("y", Type::F32, floats(n, -1.0f, 1.0f, seed_of(seed, "K12y"))));
  kc.buffers.push_back(output("z", Type::F32, n, exact("one fma")));
  kc.bytes_moved = std::uint64_t{n} * 12;
  kc.elements = n;
  return kc;
}

// ---- K13: one f32 math function per case -------------------------------------------------------------------------------------
// Each invocation evaluates the function at kK13Evaluations points near its input and keeps the
// largest result, so that the case measures the math, not the memory (one evaluation per 8 bytes
// moved is bandwidth-bound on a GPU, whatever the function costs).

struct MathFunction {
  const char* name;
  UnOp op;
  float lo, hi;       // the input range
  std::uint32_t ulp;  // SPEC §5 for vyre + the CUDA Math API's documented bound for the twin
  const char* why;
};

// The input ranges are where the functions are used (no overflow to inf at the edges: a last-ULP
// difference there would read as inf against a finite value).
const std::vector<MathFunction>& math_functions() {
  static const std::vector<MathFunction> table = {
      {"sin", UnOp::Sin, -10.0f, 10.0f, 6, "SPEC 4 + sinf 2"},
      {"cos", UnOp::Cos, -10.0f, 10.0f, 6, "SPEC 4 + cosf 2"},
      {"tan", UnOp::Tan, -1.5f, 1.5f, 9, "SPEC 5 + tanf 4"},
      {"exp", UnOp::Exp, -80.0f, 80.0f, 4, "SPEC 2 + expf 2"},
      {"exp2", UnOp::Exp2, -120.0f, 120.0f, 4, "SPEC 2 + exp2f 2"},
      {"log", UnOp::Log, 1e-6f, 1e6f, 3, "SPEC 2 + logf 1"},
      {"log2", UnOp::Log2, 1e-6f, 1e6f, 3, "SPEC 2 + log2f 1"},
      {"tanh", UnOp::Tanh, -10.0f, 10.0f, 6, "SPEC 4 + tanhf 2"},
      {"atan", UnOp::Atan, -100.0f, 100.0f, 7, "SPEC 5 + atanf 2"},
      {"asin", UnOp::Asin, -1.0f, 1.0f, 6, "SPEC 4 + asinf 2"},
      {"acos", UnOp::Acos, -1.0f, 1.0f, 6, "SPEC 4 + acosf 2"},
      {"sinh", UnOp::Sinh, -10.0f, 10.0f, 7, "SPEC 4 + sinhf 3"},
      {"cosh", UnOp::Cosh, -10.0f, 10.0f, 6, "SPEC 4 + coshf 2"},
      {"sqrt", UnOp::Sqrt, 0.0f, 1e6f, 0, "correctly rounded on both sides"},
      {"inverse_sqrt", UnOp::InverseSqrt, 1e-6f, 1e6f, 4, "SPEC 2 + rsqrtf 2"},
      {"reciprocal", UnOp::Reciprocal, 1e-6f, 1e6f, 0, "correctly rounded on both sides (1.0f / x)"},
  };
  return table;
}

KernelCase k13(const MathFunction& f, std::uint32_t index, Size size, std::uint64_t seed) {
  const std::uint32_t n = size == Size::Full ? (64u << 20) : 4096;
  KernelCase kc;
  kc.title = fmt::format("{} f32 max over k < {} of {}(x (1 - k/256)), x in [{:g}, {:g}]", n, kK13Evaluations, f.name,
                         f.lo, f.hi);
  ProgramBuilder b;
  b.workgroup(256);
  auto xs = b.buffer("x", Access::Read, Type::F32, n);
  auto out = b.buffer("out", Access::Output, Type::F32, n);
  auto i = b.let("i", invocation_id(0));
  auto x0 = b.let("x0", xs[i]);
  b.let("m", un(f.op, x0));
  b.loop("k", u32(1), u32(kK13Evaluations), [&](Expr k) {
    auto scale = f32(1.0f) - cast(Type::F32, k) * f32(0.00390625f);  // exact: k / 256
    b.assign("m", max(var("m"), un(f.op, x0 * scale)));
  });
  b.store(out, i, var("m"));
  kc.program = b.build();
  kc.grid = {n / 256, 1, 1};
  kc.explicit_grid = false;
  kc.params = {n, index};
  kc.buffers.push_back(input("x", Type::F32, floats(n, f.lo, f.hi, seed_of(seed, fmt::format("K13-{}", f.name)))));
  kc.buffers.push_back(output("out", Type::F32, n,
                              f.ulp == 0 ? exact(f.why) : ulps(f.ulp, fmt::format("{} ULP", f.why))));
  kc.bytes_moved = std::uint64_t{n} * 8;
  kc.elements = n;
  return kc;
}

}  // namespace

vyre::DispatchConfig KernelCase::config() const {
  vyre::DispatchConfig c;
  if (explicit_grid) c.grid = grid;
  return c;
}

std::vector<std::string> k13_functions() {
  std::vector<std::string> out;
  for (const auto& f : math_functions()) out.emplace_back(f.name);
  return out;
}

std::vector<std::string> kernel_ids() {
  std::vector<std::string> out;
  for (int k = 1; k <= 12; ++k) out.push_back(fmt::format("K{}", k));
  for (const auto& f : math_functions()) out.push_back(fmt::format("K13-{}", f.name));
  return out;
}

KernelCase make_case(std::string_view id, Size size, std::uint32_t multiprocessors, std::uint64_t seed, Inputs inputs) {
  multiprocessors = std::max(1u, multiprocessors);
  struct Generate {
    explicit Generate(bool on) { generate_data = on; }
    ~Generate() { generate_data = true; }
  } generate(inputs == Inputs::Generate);
  KernelCase kc;
  if (id == "K1") kc = k1(size, seed);
  else if (id == "K2") kc = k2(size, seed);
  else if (id == "K3") kc = k3(size, seed);
  else if (id == "K4") kc = k4(size, multiprocessors, seed);
  else if (id == "K5") kc = k5(size, seed);
  else if (id == "K6") kc = k6(size, seed);
  else if (id == "K7") kc = k7(size, seed);
  else if (id == "K8") kc = k8(size, seed);
  else if (id == "K9") kc = k9(size, multiprocessors, seed);
  else if (id == "K10") kc = k10(size, multiprocessors, seed);
  else if (id == "K11") kc = k11(size, seed);
  else if (id == "K12") kc = k12(size, seed);
  else if (id.starts_with("K13-")) {
    const auto& table = math_functions();
    for (std::uint32_t f = 0; f < table.size(); ++f)
      if (id.substr(4) == table[f].name) kc = k13(table[f], f, size, seed);
    if (kc.program.body.empty()) throw std::invalid_argument(
          fmt::format("unknown K13 function in '{}'. Fix: use one of k13_functions() (vyre-bench --list).", id));
  } else {
    throw std::invalid_argument(fmt::format("unknown kernel case '{}'. Fix: use one of kernel_ids().", id));
  }
  kc.id = std::string(id);
  kc.cheap_host = id == "K4" || id == "K5" || id == "K8" || id == "K9" || id == "K10" || id == "K11" || id == "K12";
  std::string twin = kc.id.starts_with("K13-") ? std::string("k13") : kc.id;
  for (char& c : twin) c = static_cast<char>(c == 'K' ? 'k' : c);
  kc.twin = "vyre_twin_" + twin;
  kc.block = kc.program.workgroup_size;
  return kc;
}

}  // namespace vyre::bench::kernels
