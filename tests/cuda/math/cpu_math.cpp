// Compiled with -ffp-contract=off (see CMakeLists.txt): every float operation rounds as the PTX
// instruction it stands for.
#include "cpu_math.hpp"

#include <array>
#include <utility>

#include "math/algorithms/functions.hpp"
#include "math/cpu_backend.hpp"

namespace vyre::cuda::math_test {
namespace {

using math::CpuBackend;
constexpr std::size_t kOps = math::kLibraryOps.size();

template <vyre::UnOp Op>
float eval32(float x) {
  CpuBackend b;
  return math::evaluate<math::P32>(b, Op, CpuBackend::F32{x}).v;
}

template <vyre::UnOp Op>
double eval64(double x) {
  CpuBackend b;
  return math::evaluate<math::P64>(b, Op, CpuBackend::F64{x}).v;
}

template <std::size_t... I>
constexpr std::array<F32Fn, kOps> table32(std::index_sequence<I...>) {
  return {&eval32<math::kLibraryOps[I]>...};
}

template <std::size_t... I>
constexpr std::array<F64Fn, kOps> table64(std::index_sequence<I...>) {
  return {&eval64<math::kLibraryOps[I]>...};
}

constexpr auto kTable32 = table32(std::make_index_sequence<kOps>{});
constexpr auto kTable64 = table64(std::make_index_sequence<kOps>{});

template <class Table>
auto find(const Table& table, vyre::UnOp op) -> typename Table::value_type {
  for (std::size_t i = 0; i < kOps; ++i) {
    if (math::kLibraryOps[i] == op) return table[i];
  }
  return nullptr;
}

}  // namespace

F32Fn cpu_f32(vyre::UnOp op) { return find(kTable32, op); }

F64Fn cpu_f64(vyre::UnOp op) { return find(kTable64, op); }

int f32_variants(vyre::UnOp op) {
  if (math::has_op(math::kRsqrtGuessOps, op)) return CpuBackend::kRsqrtApproxPicks;
  if (math::has_op(math::kRcpGuessOps, op)) return CpuBackend::kRcpApproxPicks;
  return 1;
}

void use_f32_variant(int variant) { CpuBackend::approx_pick = variant; }

int current_f32_variant() { return CpuBackend::approx_pick; }

void reset_f32_admitted() { CpuBackend::approx_admitted = 0; }

int f32_admitted() { return CpuBackend::approx_admitted; }

}  // namespace vyre::cuda::math_test
