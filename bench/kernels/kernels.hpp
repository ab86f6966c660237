// The kernel suite (bench/README.md, "Kernel suite"): cases K1..K13, each a vyre program built here
// with the SDK's builder, its inputs, its launch geometry, how its outputs are compared, and a plain
// C++ host computation of the same algorithm (the CPU test checks the programs against it). The CUDA
// C twins of the same kernels are bench/kernels/k*.cu (libvyre_kernel_twins.so).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vyre/ir.hpp"

namespace vyre::bench::kernels {

// How an output of vyre is compared with the twin's (and, in the CPU test, with the host's).
enum class Compare {
  Exact,  // bit for bit (integers, f16 storage of exact values, fma/add/mul-only float kernels)
  Ulp,    // at most `ulp` apart on the ordered-bit scale of the element type (f16, f32 or f64);
          // NaN only matches NaN, infinities and zeros of either sign only themselves
  Close,  // |a - b| <= abs + rel * |b| (kernels whose terms may cancel); NaN only matches NaN
};

struct Tolerance {
  Compare kind = Compare::Exact;
  std::uint64_t ulp = 0;
  double abs = 0;
  double rel = 0;
  std::string why;  // where the bound comes from (SPEC §5 and the CUDA math library's documented bounds)
};

// One non-workgroup buffer of the program, in declaration order.
struct KernelBuffer {
  std::string name;
  vyre::Access access = vyre::Access::Read;
  vyre::Type element = vyre::Type::U32;
  std::vector<std::byte> data;  // the initial contents (zeros for outputs)
  bool reset = false;           // uploaded again before every sample (accumulated or sorted in place)
  Tolerance tolerance;          // outputs only
  bool is_output() const { return vyre::is_host_output(access); }
};

struct KernelCase {
  std::string id;     // "K1", "K13-sin", ...
  std::string title;
  std::string twin;   // the twin's entry point in libvyre_kernel_twins.so ("vyre_twin_k1", ...)
  vyre::Program program;
  std::array<std::uint32_t, 3> grid{1, 1, 1};   // workgroups per axis: the twin's grid, and vyre's when
  bool explicit_grid = true;                     // ... this is set; elementwise kernels leave it to vyre's
                                                 // default (one invocation per element of the output, the
                                                 // same geometry), as a user dispatches them
  std::array<std::uint32_t, 3> block{1, 1, 1};  // = program.workgroup_size
  std::array<std::uint64_t, 8> params{};        // the twin's scalars (sizes, constants as bits)
  std::vector<KernelBuffer> buffers;
  std::uint64_t bytes_moved = 0;  // compulsory global traffic of one run (bandwidth figure)
  std::uint64_t elements = 0;     // the problem size, for the JSON
  bool cheap_host = false;        // host_outputs at the full size takes seconds, not minutes: vyre-bench
                                  // checks vyre against it too (integer and fma-only kernels but K1)

  vyre::DispatchConfig config() const;
};

enum class Size { Full, Small };
// Generate: the inputs and zeroed outputs in KernelBuffer::data. None: only the program, geometry
// and buffer list (empty data), for tools that only compile (vyre-bench-ptx).
enum class Inputs { Generate, None };

// The ids of every kernel case in run order: K1..K12, then K13-<function> for every f32 function.
std::vector<std::string> kernel_ids();
// The K13 functions ("sin", "cos", ...).
std::vector<std::string> k13_functions();
// K13 evaluates its function at this many points per element: max over k of f(x (1 - k/256)).
inline constexpr std::uint32_t kK13Evaluations = 8;

// Build case `id` at `size`. `multiprocessors` sizes the grid-stride kernels (K4, K9, K10) the way a
// CUDA programmer sizes them from the device. Throws std::invalid_argument for an unknown id.
KernelCase make_case(std::string_view id, Size size, std::uint32_t multiprocessors, std::uint64_t seed,
                     Inputs inputs = Inputs::Generate);

// The outputs (read_write and output buffers, declaration order) of the same algorithm computed on
// the host in plain C++.
std::vector<std::vector<std::byte>> host_outputs(const KernelCase& kc);

struct Comparison {
  bool ok = true;
  std::uint64_t mismatches = 0;
  double max_ulp = 0;         // Ulp: the largest distance seen
  double max_abs = 0;         // Close: the largest |a - b| seen
  std::string first_failure;  // "index i: expected X, got Y"
};

// Compare `actual` with `expected` as buffer `b` says. Sizes must agree.
Comparison compare(const KernelBuffer& b, std::span<const std::byte> expected, std::span<const std::byte> actual);

}  // namespace vyre::bench::kernels
