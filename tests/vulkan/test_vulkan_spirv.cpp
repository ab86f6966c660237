// The SPIR-V emitter: every op it lowers, in every program conform uses to test the op, gives a
// module the SPIR-V validator accepts in the Vulkan 1.2 environment, for a device with every
// feature and for one with none, without an instruction whose precision Vulkan leaves open; ops a
// device lacks are refused with VYRE_ERR_UNSUPPORTED. fma, and the math library's fmas, are OpFmaKHR
// exactly where the device has VK_KHR_shader_fma for the width, GLSL.std.450 Fma (NoContraction)
// where the fma probe passed, the exact emulation elsewhere. The fma probe's decision (its table
// against fused and unfused host results) and its module are tested here too.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include <spirv/unified1/GLSL.std.450.h>
#include <spirv/unified1/spirv.hpp11>

#include "codegen/fma_probe.hpp"
#include "codegen/lowering.hpp"
#include "spirv_validate.hpp"
#include "vyre/builder.hpp"
#include "vyre/conform/op_programs.hpp"
#include "vyre/error.hpp"

namespace {

using vyre::vulkan::DeviceFeatures;

// Instructions whose precision Vulkan does not promise (OpFDiv: 2.5 ULP; GLSL.std.450 fma may be
// unfused; sqrt, inversesqrt, exp, log, the trigonometric functions have no or weak bounds), and
// GLSL.std.450 instructions other than the exact integer ones the emitter uses. With `seeds`
// (a device with seeded div/sqrt), OpFDiv and InverseSqrt are allowed: the seeded algorithms take
// their seeds from them and correct them (seeded_div_sqrt.hpp).
// With `glsl_fma` (a device whose fma source is the probe), GLSL.std.450 Fma is allowed: the
// runtime keeps it only where the probe showed it fused.
std::string imprecise_instruction(const std::vector<std::uint32_t>& words, bool seeds = false, bool glsl_fma = false) {
  std::uint32_t glsl_set = 0;
  for (std::size_t i = 5; i < words.size();) {
    const std::uint32_t count = words[i] >> 16;
    const auto op = static_cast<spv::Op>(words[i] & 0xFFFF);
    if (count == 0) return "a zero-length instruction";
    if (op == spv::Op::OpExtInstImport) glsl_set = words[i + 1];
    if ((op == spv::Op::OpFDiv && !seeds) || op == spv::Op::OpFRem || op == spv::Op::OpFMod) return "OpFDiv/OpFRem/OpFMod";
    if (op == spv::Op::OpExtInst && words[i + 3] == glsl_set) {
      const std::uint32_t inst = words[i + 4];
      if (inst != GLSLstd450FindUMsb && inst != GLSLstd450FindILsb && inst != GLSLstd450UMin &&
          !(seeds && inst == GLSLstd450InverseSqrt) && !(glsl_fma && inst == GLSLstd450Fma))
        return "GLSL.std.450 instruction " + std::to_string(inst);
    }
    i += count;
  }
  return {};
}

void check_valid(const vyre::Program& program, const DeviceFeatures& features, const std::string& what) {
  const vyre::vulkan::LoweredProgram lowered = vyre::vulkan::lower(program, features);
  CHECK(imprecise_instruction(lowered.spirv, features.seeded_div_sqrt32 || features.seeded_div_sqrt64) == "");
  const std::string problems = vyre::vulkantest::validate_spirv(lowered.spirv);
  INFO(what);
  INFO(problems);
  if (!problems.empty()) INFO(vyre::vulkantest::disassemble(lowered.spirv));
  CHECK(problems.empty());
  CHECK(!lowered.entries.empty());
}

}  // namespace

TEST_CASE("every emitted op's test programs validate (all features)") {
  std::size_t ops = 0, programs = 0;
  for (const vyre::OpInfo& op : vyre::op_catalog()) {
    if (!vyre::vulkan::emits(op)) continue;
    ++ops;
    for (const auto& test : vyre::conform::op_tests(op)) {
      const auto built = test.build(test.max_cases == 0 ? 4 : test.max_cases);
      check_valid(built.program, DeviceFeatures::all(), op.id + " / " + test.name);
      ++programs;
    }
  }
  MESSAGE(ops << " ops, " << programs << " programs validated");
  CHECK(ops > 0);
}

TEST_CASE("a device without optional features gets valid modules for what it supports, and refusals") {
  const DeviceFeatures none{};
  std::size_t refused = 0;
  for (const vyre::OpInfo& op : vyre::op_catalog()) {
    if (!vyre::vulkan::emits(op)) continue;
    for (const auto& test : vyre::conform::op_tests(op)) {
      const auto built = test.build(test.max_cases == 0 ? 4 : test.max_cases);
      bool supported = true;
      for (const std::string& used : vyre::ops_used(built.program))
        supported = supported && vyre::vulkan::device_supports(*vyre::find_op(used), none);
      if (supported) {
        check_valid(built.program, none, op.id + " / " + test.name + " (no features)");
        continue;
      }
      ++refused;
      try {
        vyre::vulkan::lower(built.program, none);
        FAIL("lowering " << op.id << " without its features did not throw");
      } catch (const vyre::Error& e) {
        CHECK(e.code() == VYRE_ERR_UNSUPPORTED);
      }
    }
  }
  CHECK(refused > 0);
}

TEST_CASE("declared ops are catalog ops and exactly those the emitter lowers") {
  const auto ids = vyre::vulkan::emitted_ops();
  for (const std::string& id : ids) {
    const vyre::OpInfo* op = vyre::find_op(id);
    REQUIRE(op != nullptr);
    CHECK(vyre::vulkan::emits(*op));
    CHECK(vyre::vulkan::device_supports(*op, DeviceFeatures::all()));
  }
}

// ---- fma: OpFmaKHR where the device has VK_KHR_shader_fma, the exact emulation elsewhere ----------

namespace {

constexpr std::uint32_t kOpFmaKHR = 4427, kCapabilityFMAKHR = 6030;
namespace vt = vyre::vulkantest;

// out[i] = fma(a[i], x[i], y[i]) of `t`.
vyre::Program fma_program(vyre::Type t) {
  using namespace vyre::dsl;
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto a = b.buffer("a", vyre::Access::Read, t);
  auto x = b.buffer("x", vyre::Access::Read, t);
  auto y = b.buffer("y", vyre::Access::Read, t);
  auto out = b.buffer("out", vyre::Access::Output, t, 16);
  auto i = b.let("i", invocation_id(0));
  b.store(out, i, fma(a[i], x[i], y[i]));
  return b.build();
}

// out[i] = exp(a[i]) of `t`: the math library, whose polynomials are fmas.
vyre::Program exp_program(vyre::Type t) {
  using namespace vyre::dsl;
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto a = b.buffer("a", vyre::Access::Read, t);
  auto out = b.buffer("out", vyre::Access::Output, t, 16);
  auto i = b.let("i", invocation_id(0));
  b.store(out, i, un(vyre::UnOp::Exp, a[i]));
  return b.build();
}

DeviceFeatures with_fma(bool f32, bool f64) {
  DeviceFeatures f = DeviceFeatures::all();
  f.fma32 = f.seeded_div_sqrt32 = f32;
  f.fma64 = f.seeded_div_sqrt64 = f64;
  return f;
}

std::vector<std::uint32_t> lowered_valid(const vyre::Program& program, const DeviceFeatures& features) {
  const auto lowered = vyre::vulkan::lower(program, features);
  const std::string problems = vt::validate_spirv(lowered.spirv);
  INFO(problems);
  if (!problems.empty()) INFO(vt::disassemble(lowered.spirv));
  CHECK(problems.empty());
  const bool probed = features.fma_source32 == DeviceFeatures::FmaSource::Probe ||
                      features.fma_source64 == DeviceFeatures::FmaSource::Probe;
  CHECK(imprecise_instruction(lowered.spirv, features.seeded_div_sqrt32 || features.seeded_div_sqrt64, probed) == "");
  return lowered.spirv;
}

bool uses_fma_khr(const std::vector<std::uint32_t>& spirv) {
  const bool op = vt::has_opcode(spirv, kOpFmaKHR);
  // The instruction, its capability and its extension come together.
  CHECK(vt::has_capability(spirv, kCapabilityFMAKHR) == op);
  CHECK(vt::has_extension(spirv, "SPV_KHR_fma") == op);
  return op;
}

}  // namespace

TEST_CASE("fma is OpFmaKHR on a device with VK_KHR_shader_fma and the exact emulation without") {
  const std::string how = vt::spirv_tools_know_fma()
                              ? "knows SPV_KHR_fma: modules with OpFmaKHR are validated whole"
                              : "predates SPV_KHR_fma: modules with OpFmaKHR are validated with it rewritten to GLSL.std.450 Fma";
  MESSAGE("SPIRV-Tools " << how);
  for (vyre::Type t : {vyre::Type::F32, vyre::Type::F64}) {
    const bool f32 = t == vyre::Type::F32;
    const std::string helper = f32 ? "vyre_exact_fma_f32" : "vyre_exact_fma_f64";
    INFO(vyre::type_name(t));
    const auto native = lowered_valid(fma_program(t), with_fma(f32, !f32));
    CHECK(uses_fma_khr(native));
    CHECK(!vt::has_name(native, helper));
    // The other width's feature does not help, and no feature gives the emulation.
    for (const DeviceFeatures& f : {with_fma(!f32, f32), with_fma(false, false)}) {
      const auto emulated = lowered_valid(fma_program(t), f);
      CHECK(!uses_fma_khr(emulated));
      CHECK(vt::has_name(emulated, helper));
    }
  }
}

TEST_CASE("the math library's fmas are OpFmaKHR on a device with VK_KHR_shader_fma") {
  for (vyre::Type t : {vyre::Type::F32, vyre::Type::F64}) {
    const bool f32 = t == vyre::Type::F32;
    const std::string helper = f32 ? "vyre_exact_fma_f32" : "vyre_exact_fma_f64";
    INFO(vyre::type_name(t));
    const auto native = lowered_valid(exp_program(t), with_fma(f32, !f32));
    CHECK(uses_fma_khr(native));
    CHECK(!vt::has_name(native, helper));
    const auto emulated = lowered_valid(exp_program(t), with_fma(!f32, f32));
    CHECK(!uses_fma_khr(emulated));
    CHECK(vt::has_name(emulated, helper));
  }
}

TEST_CASE("f32 fma needs 64-bit integers only where it is emulated") {
  const vyre::OpInfo* op = vyre::find_op("fma.f32");
  REQUIRE(op != nullptr);
  DeviceFeatures f{};  // no shaderInt64
  CHECK(!vyre::vulkan::device_supports(*op, f));
  f.fma32 = true;
  CHECK(vyre::vulkan::device_supports(*op, f));
  const auto spirv = lowered_valid(fma_program(vyre::Type::F32), f);
  CHECK(uses_fma_khr(spirv));
  CHECK(!vt::has_capability(spirv, static_cast<std::uint32_t>(spv::Capability::Int64)));
}

TEST_CASE("the SPV_KHR_fma rewrite for old SPIRV-Tools keeps a module valid and changes nothing without OpFmaKHR") {
  const auto emulated = vyre::vulkan::lower(fma_program(vyre::Type::F32), with_fma(false, false)).spirv;
  CHECK(vt::fma_khr_rewritten(emulated) == emulated);
  const auto native = vyre::vulkan::lower(fma_program(vyre::Type::F32), with_fma(true, true)).spirv;
  const auto rewritten = vt::fma_khr_rewritten(native);
  CHECK(!vt::has_opcode(rewritten, kOpFmaKHR));
  CHECK(!vt::has_capability(rewritten, kCapabilityFMAKHR));
  CHECK(!vt::has_extension(rewritten, "SPV_KHR_fma"));
  CHECK(vt::has_opcode(rewritten, static_cast<std::uint32_t>(spv::Op::OpExtInst)));
  // Validated directly: the rewritten module is valid for any SPIRV-Tools.
  CHECK(vt::validate_spirv(rewritten) == "");
  // A module with OpFmaKHR but without its capability is refused (FMAKHR turned into Shader).
  std::vector<std::uint32_t> broken = native;
  for (std::size_t i = 5; i < broken.size(); i += broken[i] >> 16)
    if ((broken[i] & 0xFFFF) == static_cast<std::uint32_t>(spv::Op::OpCapability) && broken[i + 1] == kCapabilityFMAKHR)
      broken[i + 1] = static_cast<std::uint32_t>(spv::Capability::Shader);
  CHECK(!vt::has_capability(broken, kCapabilityFMAKHR));
  CHECK(vt::validate_spirv(broken) != "");
}

// ---- div, sqrt, reciprocal: seeded (an OpFDiv / InverseSqrt seed corrected with fma) or exact ----

namespace {

// out[i] = a[i] / b[i], sqrt(a[i]) and reciprocal(b[i]) of `t`.
vyre::Program div_sqrt_program(vyre::Type t) {
  using namespace vyre::dsl;
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto a = b.buffer("a", vyre::Access::Read, t);
  auto d = b.buffer("d", vyre::Access::Read, t);
  auto q = b.buffer("q", vyre::Access::Output, t, 16);
  auto s = b.buffer("s", vyre::Access::Output, t, 16);
  auto r = b.buffer("r", vyre::Access::Output, t, 16);
  auto i = b.let("i", invocation_id(0));
  b.store(q, i, a[i] / d[i]);
  b.store(s, i, un(vyre::UnOp::Sqrt, a[i]));
  b.store(r, i, un(vyre::UnOp::Reciprocal, d[i]));
  return b.build();
}

}  // namespace

TEST_CASE("div, sqrt and reciprocal are seeded where the device says so, exact integer work elsewhere") {
  for (vyre::Type t : {vyre::Type::F32, vyre::Type::F64}) {
    const bool f32 = t == vyre::Type::F32;
    const std::string w = f32 ? "_f32" : "_f64";
    INFO(vyre::type_name(t));
    DeviceFeatures seeded = with_fma(f32, !f32);
    const auto fast = lowered_valid(div_sqrt_program(t), seeded);
    CHECK(vt::has_name(fast, "vyre_seeded_div" + w));
    CHECK(vt::has_name(fast, "vyre_seeded_sqrt" + w));
    CHECK(vt::has_opcode(fast, static_cast<std::uint32_t>(spv::Op::OpFDiv)));  // the seed
    CHECK(uses_fma_khr(fast));
    // The integer algorithms stay, for the operands the seeded ones leave out.
    CHECK(vt::has_name(fast, "vyre_exact_div" + w));
    CHECK(vt::has_name(fast, "vyre_exact_sqrt" + w));
    // Without: no seed, no seeded function.
    const auto exact = lowered_valid(div_sqrt_program(t), with_fma(!f32, f32));
    CHECK(!vt::has_name(exact, "vyre_seeded_div" + w));
    CHECK(!vt::has_name(exact, "vyre_seeded_sqrt" + w));
    CHECK(vt::has_name(exact, "vyre_exact_div" + w));
    CHECK(!vt::has_opcode(exact, static_cast<std::uint32_t>(spv::Op::OpFDiv)));
    // Seeded over the emulated fma (VYRE_VULKAN_SEEDED_DIV_SQRT=1 on a device without OpFmaKHR).
    seeded.fma32 = seeded.fma64 = false;
    const auto emulated = lowered_valid(div_sqrt_program(t), seeded);
    CHECK(vt::has_name(emulated, "vyre_seeded_div" + w));
    CHECK(vt::has_name(emulated, "vyre_exact_fma" + w));
    CHECK(!uses_fma_khr(emulated));
  }
}

// ---- the fma probe (codegen/fma_probe.hpp): GLSL.std.450 Fma where the driver lacks VK_KHR_shader_fma ----

namespace {

using vyre::vulkan::FmaProbeCase;
using Source = DeviceFeatures::FmaSource;

// The number of GLSL.std.450 Fma instructions, and whether each carries NoContraction.
struct GlslFmas {
  std::size_t count = 0;
  bool all_no_contraction = true;
};
GlslFmas glsl_fmas(const std::vector<std::uint32_t>& words) {
  std::uint32_t glsl_set = 0;
  std::vector<std::uint32_t> results, no_contraction;
  for (std::size_t i = 5; i < words.size(); i += words[i] >> 16) {
    const auto op = static_cast<spv::Op>(words[i] & 0xFFFF);
    if (op == spv::Op::OpExtInstImport) glsl_set = words[i + 1];
    if (op == spv::Op::OpDecorate && words[i + 2] == static_cast<std::uint32_t>(spv::Decoration::NoContraction))
      no_contraction.push_back(words[i + 1]);
    if (op == spv::Op::OpExtInst && words[i + 3] == glsl_set && words[i + 4] == GLSLstd450Fma) results.push_back(words[i + 2]);
  }
  GlslFmas g;
  g.count = results.size();
  for (std::uint32_t r : results)
    if (std::find(no_contraction.begin(), no_contraction.end(), r) == no_contraction.end()) g.all_no_contraction = false;
  return g;
}

// What a device whose fma is a multiply and an add, each rounded, returns for the probe table
// (NaN canonical, as a vyre kernel stores it).
template <class F, class U>
std::vector<std::uint64_t> unfused_results(const std::vector<FmaProbeCase>& cases) {
  std::vector<std::uint64_t> out;
  for (const FmaProbeCase& c : cases) {
    const F a = std::bit_cast<F>(static_cast<U>(c.a)), b = std::bit_cast<F>(static_cast<U>(c.b));
    const F z = std::bit_cast<F>(static_cast<U>(c.c));
    volatile F p = a * b;  // rounded on its own (volatile: no contraction)
    const F r = p + z;
    const U nan = sizeof(F) == 4 ? U(0x7FC00000u) : static_cast<U>(0x7FF8000000000000ull);
    out.push_back(std::isnan(r) ? nan : std::bit_cast<U>(r));
  }
  return out;
}

template <class F, class U>
std::vector<std::uint64_t> fused_results(const std::vector<FmaProbeCase>& cases) {
  std::vector<std::uint64_t> out;
  for (const FmaProbeCase& c : cases) {
    const F r = std::fma(std::bit_cast<F>(static_cast<U>(c.a)), std::bit_cast<F>(static_cast<U>(c.b)),
                         std::bit_cast<F>(static_cast<U>(c.c)));
    const U nan = sizeof(F) == 4 ? U(0x7FC00000u) : static_cast<U>(0x7FF8000000000000ull);
    out.push_back(std::isnan(r) ? nan : std::bit_cast<U>(r));
  }
  return out;
}

}  // namespace

TEST_CASE("the fma probe passes a fused device and fails an unfused one, entry by entry") {
  for (vyre::Type t : {vyre::Type::F32, vyre::Type::F64}) {
    INFO(vyre::type_name(t));
    const bool f32 = t == vyre::Type::F32;
    const auto cases = vyre::vulkan::fma_probe_cases(t);
    REQUIRE(cases.size() >= 64);
    CHECK(cases == vyre::vulkan::fma_probe_cases(t));  // the same table every time
    const auto fused = f32 ? fused_results<float, std::uint32_t>(cases) : fused_results<double, std::uint64_t>(cases);
    const auto unfused = f32 ? unfused_results<float, std::uint32_t>(cases) : unfused_results<double, std::uint64_t>(cases);
    CHECK(vyre::vulkan::fma_probe_passes(cases, fused));
    CHECK(vyre::vulkan::fma_probe_mismatches(cases, fused) == 0);
    CHECK(!vyre::vulkan::fma_probe_passes(cases, unfused));
    // Most of the table tells fused from unfused: cancellations, the tie, overflow, subnormal
    // results and signed zeros, the products' rounding errors.
    const std::size_t differ = vyre::vulkan::fma_probe_mismatches(cases, unfused);
    MESSAGE(vyre::type_name(t) << ": an unfused fma misses " << differ << " of " << cases.size() << " probe entries");
    CHECK(differ >= cases.size() / 2);
    // One wrong bit in any entry fails the probe.
    for (std::size_t i = 0; i < cases.size(); i += 7) {
      auto wrong = fused;
      wrong[i] ^= 1;
      CHECK(vyre::vulkan::fma_probe_mismatches(cases, wrong) == 1);
      CHECK(!vyre::vulkan::fma_probe_passes(cases, wrong));
    }
    // Missing or extra results, and an empty table, never pass.
    CHECK(!vyre::vulkan::fma_probe_passes(cases, std::span(fused).first(fused.size() - 1)));
    CHECK(!vyre::vulkan::fma_probe_passes({}, {}));
    // The exact table (the test hook) cannot tell them apart: every device passes it.
    const auto exact = vyre::vulkan::fma_probe_exact_cases(t);
    const auto exact_unfused = f32 ? unfused_results<float, std::uint32_t>(exact) : unfused_results<double, std::uint64_t>(exact);
    CHECK(vyre::vulkan::fma_probe_passes(exact, exact_unfused));
  }
}

TEST_CASE("the fma probe table's expected bits are std::fma with NaN canonical, and cover the special classes") {
  const auto cases = vyre::vulkan::fma_probe_cases(vyre::Type::F32);
  bool nan = false, inf = false, neg_zero = false, subnormal = false, max = false;
  for (const FmaProbeCase& c : cases) {
    const float r = std::bit_cast<float>(static_cast<std::uint32_t>(c.expected));
    CHECK((c.expected >> 32) == 0);
    nan |= c.expected == 0x7FC00000u;
    inf |= std::isinf(r);
    neg_zero |= c.expected == 0x80000000u;
    subnormal |= std::fpclassify(r) == FP_SUBNORMAL;
    max |= std::fabs(r) == std::numeric_limits<float>::max();
    if (std::isnan(r)) CHECK(c.expected == 0x7FC00000u);
  }
  CHECK(nan);
  CHECK(inf);
  CHECK(neg_zero);
  CHECK(subnormal);
  CHECK(max);
}

TEST_CASE("the fma probe module is valid and computes fma with GLSL.std.450 Fma marked NoContraction") {
  for (vyre::Type t : {vyre::Type::F32, vyre::Type::F64}) {
    const bool f32 = t == vyre::Type::F32;
    INFO(vyre::type_name(t));
    const std::string helper = f32 ? "vyre_exact_fma_f32" : "vyre_exact_fma_f64";
    const DeviceFeatures probed = vyre::vulkan::fma_probe_features(with_fma(false, false), t);
    CHECK(probed.fma_source(t) == Source::Probe);
    CHECK((f32 ? probed.fma32 : probed.fma64));
    const auto n = static_cast<std::uint32_t>(vyre::vulkan::fma_probe_cases(t).size());
    const auto spirv = lowered_valid(vyre::vulkan::fma_probe_program(t, n), probed);
    const GlslFmas g = glsl_fmas(spirv);
    CHECK(g.count == 1);
    CHECK(g.all_no_contraction);
    CHECK(!uses_fma_khr(spirv));
    CHECK(!vt::has_name(spirv, helper));
    // The same program on a device whose fma is the emulation: no GLSL Fma.
    const auto emulated = lowered_valid(vyre::vulkan::fma_probe_program(t, n), with_fma(false, false));
    CHECK(glsl_fmas(emulated).count == 0);
    CHECK(vt::has_name(emulated, helper));
  }
}

TEST_CASE("a probed fma is GLSL.std.450 Fma in the math library and under the seeded div/sqrt too") {
  for (vyre::Type t : {vyre::Type::F32, vyre::Type::F64}) {
    const bool f32 = t == vyre::Type::F32;
    const std::string w = f32 ? "_f32" : "_f64";
    INFO(vyre::type_name(t));
    DeviceFeatures f = vyre::vulkan::fma_probe_features(with_fma(false, false), t);
    (f32 ? f.seeded_div_sqrt32 : f.seeded_div_sqrt64) = true;
    const auto math = lowered_valid(exp_program(t), f);
    CHECK(glsl_fmas(math).count >= 1);
    CHECK(glsl_fmas(math).all_no_contraction);
    CHECK(!uses_fma_khr(math));
    CHECK(!vt::has_name(math, "vyre_exact_fma" + w));
    const auto seeded = lowered_valid(div_sqrt_program(t), f);
    CHECK(vt::has_name(seeded, "vyre_seeded_div" + w));
    CHECK(glsl_fmas(seeded).count >= 1);
    CHECK(!uses_fma_khr(seeded));
  }
}

TEST_CASE("fma sources are named, and setting one sets the width's fma") {
  CHECK(std::string(vyre::vulkan::fma_source_name(Source::Extension)) == "extension");
  CHECK(std::string(vyre::vulkan::fma_source_name(Source::Probe)) == "probe");
  CHECK(std::string(vyre::vulkan::fma_source_name(Source::Emulation)) == "emulation");
  CHECK(std::string(vyre::vulkan::fma_source_name(Source::Wide)) == "wide");
  DeviceFeatures f{};
  f.set_fma(vyre::Type::F64, Source::Probe);
  CHECK((f.fma64 && !f.fma32));
  CHECK(f.fma_source(vyre::Type::F64) == Source::Probe);
  CHECK(f.fma_source(vyre::Type::F32) == Source::Emulation);
  f.set_fma(vyre::Type::F64, Source::Emulation);
  CHECK(!f.fma64);
  f.set_fma(vyre::Type::F32, Source::Wide);  // not the device's fused fma: fma32 stays off
  CHECK((!f.fma32 && !f.fma64));
  CHECK(f.fma_source(vyre::Type::F32) == Source::Wide);
}

// ---- wide: f32 fma computed in f64 (math/algorithms/wide_fma.hpp) --------------------------------

namespace {

// What Runtime::open gives a device with f64 whose f32 fma is neither the extension nor probed
// fused (lavapipe, the H200): f32 fma wide with seeded f32 div/sqrt, f64 fma the emulation.
DeviceFeatures wide_features() {
  DeviceFeatures f = with_fma(false, false);
  f.set_fma(vyre::Type::F32, Source::Wide);
  f.seeded_div_sqrt32 = true;
  return f;
}

// The instructions of the function named `name` (OpFunction to OpFunctionEnd), by opcode; empty if
// there is none.
std::map<spv::Op, std::size_t> function_instructions(const std::vector<std::uint32_t>& words, const std::string& name) {
  std::uint32_t id = 0;
  for (std::size_t i = 5; i < words.size(); i += words[i] >> 16) {
    if ((words[i] & 0xFFFF) != static_cast<std::uint32_t>(spv::Op::OpName)) continue;
    const char* text = reinterpret_cast<const char*>(&words[i + 2]);
    if (name == std::string(text, strnlen(text, ((words[i] >> 16) - 2) * 4))) id = words[i + 1];
  }
  std::map<spv::Op, std::size_t> ops;
  bool inside = false;
  for (std::size_t i = 5; i < words.size(); i += words[i] >> 16) {
    const auto op = static_cast<spv::Op>(words[i] & 0xFFFF);
    if (op == spv::Op::OpFunction && words[i + 2] == id) inside = true;
    if (inside) ++ops[op];
    if (op == spv::Op::OpFunctionEnd) inside = false;
  }
  return ops;
}

std::size_t total(const std::map<spv::Op, std::size_t>& ops) {
  std::size_t n = 0;
  for (const auto& [op, count] : ops) n += count;
  return n;
}

}  // namespace

TEST_CASE("every emitted op's test programs validate with a wide f32 fma and seeded f32 div/sqrt") {
  std::size_t programs = 0;
  for (const vyre::OpInfo& op : vyre::op_catalog()) {
    if (!vyre::vulkan::emits(op)) continue;
    for (const auto& test : vyre::conform::op_tests(op)) {
      const auto built = test.build(test.max_cases == 0 ? 4 : test.max_cases);
      check_valid(built.program, wide_features(), op.id + " / " + test.name + " (wide f32 fma)");
      ++programs;
    }
  }
  MESSAGE(programs << " programs validated");
  CHECK(programs > 0);
}

TEST_CASE("a wide f32 fma is f64 arithmetic with the integer fma as its fallback, in the math library and seeded div too") {
  const DeviceFeatures f = wide_features();
  const auto fma32 = lowered_valid(fma_program(vyre::Type::F32), f);
  CHECK(vt::has_name(fma32, "vyre_wide_fma_f32"));
  CHECK(vt::has_name(fma32, "vyre_exact_fma_f32"));  // subnormal, inf and NaN operands, subnormal results
  CHECK(!uses_fma_khr(fma32));
  CHECK(glsl_fmas(fma32).count == 0);
  // Its fast path: three f32 -> f64 conversions, one f64 -> f32, f64 mul/add/sub, no f64 fma.
  const auto wide = function_instructions(fma32, "vyre_wide_fma_f32");
  const auto exact = function_instructions(fma32, "vyre_exact_fma_f32");
  REQUIRE(!wide.empty());
  REQUIRE(!exact.empty());
  CHECK(wide.at(spv::Op::OpFConvert) == 4);
  CHECK(wide.at(spv::Op::OpFMul) == 1);
  CHECK(wide.at(spv::Op::OpFAdd) == 2);
  CHECK(wide.at(spv::Op::OpFSub) == 4);
  CHECK(wide.at(spv::Op::OpFunctionCall) == 1);
  MESSAGE("SPIR-V instructions per f32 fma: wide " << total(wide) << " (its fast path; the fallback call is the emulation's "
                                                    << total(exact) << ")");
  CHECK(total(wide) < total(exact) / 2);
  // The math library's fmas and the seeded f32 division use it; f64 keeps the emulation.
  const auto math = lowered_valid(exp_program(vyre::Type::F32), f);
  CHECK(vt::has_name(math, "vyre_wide_fma_f32"));
  // The seeded f32 div/sqrt's fmas have normal operands and results: the wide fma without its
  // fallback (test_seeded_div_sqrt checks that it is never needed there).
  const auto seeded = lowered_valid(div_sqrt_program(vyre::Type::F32), f);
  CHECK(vt::has_name(seeded, "vyre_seeded_div_f32"));
  CHECK(vt::has_name(seeded, "vyre_wide_fma_normal_f32"));
  CHECK(!vt::has_name(seeded, "vyre_wide_fma_f32"));
  CHECK(!vt::has_name(seeded, "vyre_exact_fma_f32"));
  const auto normal = function_instructions(seeded, "vyre_wide_fma_normal_f32");
  REQUIRE(!normal.empty());
  CHECK(normal.count(spv::Op::OpFunctionCall) == 0);
  CHECK(normal.count(spv::Op::OpBranchConditional) == 0);
  CHECK(normal.at(spv::Op::OpFConvert) == 4);
  const auto fma64 = lowered_valid(fma_program(vyre::Type::F64), f);
  CHECK(vt::has_name(fma64, "vyre_exact_fma_f64"));
  CHECK(!vt::has_name(fma64, "vyre_wide_fma_f32"));
  // Without the source, no wide function.
  CHECK(!vt::has_name(lowered_valid(fma_program(vyre::Type::F32), with_fma(false, false)), "vyre_wide_fma_f32"));
}
