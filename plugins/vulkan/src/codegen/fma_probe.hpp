// The fma probe (issue 15): where the driver does not offer VK_KHR_shader_fma, Vulkan promises
// nothing about GLSL.std.450 Fma (it may be a multiply and an add, each rounded). The runtime then
// runs fma_probe_program, lowered with the width's fma as GLSL Fma (DeviceFeatures::FmaSource::Probe),
// once at create over fma_probe_cases, and keeps GLSL Fma for that width only when every result
// equals the host's std::fma bit for bit (fma_probe_passes); anything else (a mismatch, a failed
// dispatch) keeps the exact integer emulation. Conform on the device stays the judge.
//
// The table holds operands whose fused and unfused results differ: products whose rounding error
// is the answer (c = -(a * b rounded)), a product that rounds to 1 with c = -1, a rounding tie that
// only the unrounded product breaks, a product that overflows unless fused (c = -max, c = -inf),
// results in the subnormal range and signed zeros that only the unrounded product decides,
// infinities and NaN, huge/tiny mixes, and random operands of every exponent.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "codegen/lowering.hpp"

namespace vyre::vulkan {

// Bit patterns of the width (f32 in the low 32 bits). `expected` is the host's std::fma, NaN as
// the canonical NaN (the bits a vyre kernel stores).
struct FmaProbeCase {
  std::uint64_t a = 0, b = 0, c = 0, expected = 0;
  friend bool operator==(const FmaProbeCase&, const FmaProbeCase&) = default;
};

// The probe table of `t` (F32 or F64): the same on every call.
std::vector<FmaProbeCase> fma_probe_cases(Type t);
// A table whose products are exact, so a fused and an unfused fma agree on every entry: any device
// passes it. A test hook only (VYRE_VULKAN_FMA_PROBE_TABLE=exact, runtime.hpp), to drive the
// "probe passed" path on a device that does not fuse.
std::vector<FmaProbeCase> fma_probe_exact_cases(Type t);

// out[i] = fma(a[i], b[i], c[i]) of `t` over `n` elements (buffers a, b, c read, out output; one
// invocation per element, workgroups of 64).
Program fma_probe_program(Type t, std::uint32_t n);

// `base` with `t`'s fma from the probe (GLSL.std.450 Fma): what the probe program is lowered with.
DeviceFeatures fma_probe_features(DeviceFeatures base, Type t);

// How many of `results` (bit patterns of the width, one per case) differ from the expected bits;
// cases.size() (at least 1) when the counts differ.
std::size_t fma_probe_mismatches(std::span<const FmaProbeCase> cases, std::span<const std::uint64_t> results);
// True when there are cases and every result equals its expected bits.
bool fma_probe_passes(std::span<const FmaProbeCase> cases, std::span<const std::uint64_t> results);

}  // namespace vyre::vulkan
