// The contract between the SPIR-V emitter (codegen) and the Vulkan runtime of the plugin.
//
// lower() turns a validated Program into one SPIR-V module (version 1.5, Vulkan 1.2 environment)
// with one GLCompute entry point per phase: "main" for a program without grid_sync, else
// "phase0", "phase1", ... (the statements between top-level grid_syncs), run in order as separate
// dispatches with a memory barrier between them (docs/SEMANTICS.md allows it).
//
// Interface of every entry point:
//   - descriptor set 0, binding i: a storage buffer holding the i-th non-workgroup buffer of the
//     program (declaration order; `storage_buffers[i]` is its index in Program::buffers), as a
//     runtime array of unsigned integers of the element's width (bool: 32-bit words). A binding
//     may be larger than the data; the element counts below bound every access.
//   - push constants, u32 words: [0] N (dispatch elements, capped at 2^32 - 1), [1] tail guard
//     (1: invocations with InvocationId.x >= N do nothing), [2..4] the grid (NumWorkgroups),
//     [5 + i] the element count bound at binding i (BufLen, and the bound of every access).
//   - specialization constants: SpecId 0 = the workgroup's invocation count (the module's local
//     size is [count, 1, 1]: vyre's local ids are derived from the linear id), SpecId 1..3 = the
//     workgroup size per axis.
//   - subgroup programs need a pipeline with required subgroup size 32 and full subgroups; their
//     local linear id is SubgroupId * 32 + SubgroupLocalInvocationId, so the 32 lanes of a
//     hardware subgroup are 32 consecutive vyre local ids (SPEC §2 "Subgroups").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vyre/ir.hpp"
#include "vyre/ops.hpp"

namespace vyre::vulkan {

// What a device offers that the emitted SPIR-V may use. Each flag names the Vulkan feature or
// property behind it; the runtime fills them from the device at create.
struct DeviceFeatures {
  bool float64 = false;              // shaderFloat64
  bool int64 = false;                // shaderInt64
  bool int64_buffer_atomics = false;  // shaderBufferInt64Atomics
  bool int64_shared_atomics = false;  // shaderSharedInt64Atomics
  bool storage8 = false;             // storageBuffer8BitAccess
  bool storage16 = false;            // storageBuffer16BitAccess
  // Subgroups of exactly 32 full lanes with ballot and shuffle: subgroupSizeControl and
  // computeFullSubgroups with 32 in [minSubgroupSize, maxSubgroupSize] for compute, and the
  // basic, ballot and shuffle subgroup operations.
  bool subgroup32 = false;
  // VK_KHR_shader_float_controls promises, per width (32, 64): execution modes the module declares.
  bool denorm_preserve32 = false, denorm_preserve64 = false;
  bool rte32 = false, rte64 = false;
  bool signed_zero_inf_nan32 = false, signed_zero_inf_nan64 = false;
  // A fused fma (one rounding) computes `fma` and the math library's fmas, per width; without it
  // they are exact integer emulation. Its source (FmaSource): VK_KHR_shader_fma enabled with
  // shaderFmaFloat32 / shaderFmaFloat64 (OpFmaKHR, promised by the driver), or, where the driver
  // does not offer the extension, the fma probe (fma_probe.hpp: GLSL.std.450 Fma, which Vulkan
  // does not promise to fuse, matched the host's std::fma bit for bit on the probe table at create).
  // Wide (f32 only, not fused by the device: fma32 stays false): where neither gives a fused f32
  // fma but the device has f64, f32 fma is computed in f64
  // (plugins/shared/math/algorithms/wide_fma.hpp), exact by construction, with the integer
  // emulation for subnormal, infinite and NaN operands and subnormal results. The values are the
  // telemetry gauges fma_source_f32/f64 (0, 1, 2, 3).
  bool fma32 = false, fma64 = false;
  enum class FmaSource { Emulation, Extension, Probe, Wide };
  FmaSource fma_source32 = FmaSource::Emulation, fma_source64 = FmaSource::Emulation;
  // div, sqrt and reciprocal per width from a device seed (f32 OpFDiv / InverseSqrt) corrected with
  // fma (plugins/shared/math/algorithms/seeded_div_sqrt.hpp), the exact integer algorithms kept for
  // the operands it leaves out. Not a device feature but a choice the runtime makes: where the fma
  // of the width is exact by construction (Extension, or Wide for f32), unless
  // VYRE_VULKAN_SEEDED_DIV_SQRT says otherwise (device.hpp).
  bool seeded_div_sqrt32 = false, seeded_div_sqrt64 = false;

  // Everything on: what registration declares (the union over devices).
  static DeviceFeatures all();
  FmaSource fma_source(Type t) const { return t == Type::F32 ? fma_source32 : fma_source64; }
  // Sets fma32/fma64 and the source of width `t` (F32, F64): fused for Extension and Probe.
  void set_fma(Type t, FmaSource source);
};

// "extension", "probe", "wide" or "emulation".
const char* fma_source_name(DeviceFeatures::FmaSource source);

inline constexpr std::uint32_t kPushHeaderWords = 5;  // N, tail guard, grid[3]
inline constexpr std::uint32_t kSpirvVersion = 0x00010500;

struct LoweredProgram {
  std::vector<std::uint32_t> spirv;
  std::vector<std::string> entries;           // "main", or "phase0", "phase1", ...
  std::vector<std::uint32_t> storage_buffers;  // binding i -> index into Program::buffers
  std::uint32_t push_constant_bytes = 0;       // 4 * (kPushHeaderWords + storage_buffers.size())
  bool subgroup_size_32 = false;               // needs required subgroup size 32 + full subgroups
  std::uint64_t workgroup_bytes = 0;           // workgroup memory the module declares
};

// Lower a validated program. Throws vyre::Error VYRE_ERR_UNSUPPORTED when it uses an op that
// `features` does not allow (device_supports).
LoweredProgram lower(const Program& program, const DeviceFeatures& features);

// Whether the emitter lowers `op` at all (what the plugin declares at registration), and whether
// it lowers it for a device with `features`.
bool emits(const OpInfo& op);
bool device_supports(const OpInfo& op, const DeviceFeatures& features);

// The op ids emits() accepts, in catalog order.
std::vector<std::string> emitted_ops();

}  // namespace vyre::vulkan
