// Small programs the GPU runtime tests dispatch. Each is valid IR with known behaviour; the
// expected results always come from reference_cpu, never from these comments.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vyre/ir.hpp"

namespace vyre::cudatest {

// The programs below, by name (the fake driver runs the kernels of the one selected: fake_kernels.hpp).
enum class Kernel { None, Increment, Mix, Scramble, Affine, Rotate, Xor };

// a: read u32 (runtime-sized); out: output u32[n]. out[i] = a[i] * 3 + i for i < len(a).
Program affine_program(std::uint32_t n);

// x: read_write u32[n]; t: output u32[n]. Phase 1: t[i] = x[i] + 1. grid_sync. Phase 2:
// x[j] = t[(j + 1) % n]: every phase-2 invocation reads what another workgroup wrote in phase 1.
Program rotate_program(std::uint32_t n, std::uint32_t workgroup = 256);

// x: read_write u32[n]. x[i] = x[i] + 1.
Program increment_program(std::uint32_t n);

// x: read_write u32[n]; y: read u32[n]. x[i] = x[i] * 3 + y[i].
Program mix_program(std::uint32_t n);

// y: read_write u32[n]; x: read u32[n]. y[i] = y[i] ^ (x[i] >> 3).
Program scramble_program(std::uint32_t n);

// a, b: read u32[n]; out: output u32[n] with output_byte_range [begin, end).
Program ranged_xor_program(std::uint32_t n, std::uint64_t begin, std::uint64_t end);

// a, b: read u32[n]; out: output u32[n]. out[i] = a[i] ^ b[i].
Program xor_program(std::uint32_t n);

// What the programs above compute (u32 arithmetic wraps), for tests that check results without a
// reference backend (the fake driver's kernels compute the same: fake_kernels.hpp).
std::vector<std::uint32_t> affine_model(const std::vector<std::uint32_t>& a, std::uint32_t n);
std::vector<std::uint32_t> rotate_model(std::vector<std::uint32_t> x, int rounds);
// mix_model: `rounds` dispatches of the first `elements` elements (a count below the buffers'
// leaves the rest of x as it is).
std::vector<std::uint32_t> mix_model(std::vector<std::uint32_t> x, const std::vector<std::uint32_t>& y, int rounds = 1,
                                     std::size_t elements = SIZE_MAX);
std::vector<std::uint32_t> xor_model(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b);

}  // namespace vyre::cudatest
