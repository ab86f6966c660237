// The SPIR-V emitter: every op it lowers, in every program conform uses to test the op, gives a
// module the SPIR-V validator accepts in the Vulkan 1.2 environment, for a device with every
// feature and for one with none, without an instruction whose precision Vulkan leaves open; ops a
// device lacks are refused with VYRE_ERR_UNSUPPORTED. fma, and the math library's fmas, are OpFmaKHR
// exactly where the device has VK_KHR_shader_fma for the width, the exact emulation elsewhere.
#include <doctest/doctest.h>

#include <spirv/unified1/GLSL.std.450.h>
#include <spirv/unified1/spirv.hpp11>

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
std::string imprecise_instruction(const std::vector<std::uint32_t>& words, bool seeds = false) {
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
          !(seeds && inst == GLSLstd450InverseSqrt))
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
  CHECK(imprecise_instruction(lowered.spirv, features.seeded_div_sqrt32 || features.seeded_div_sqrt64) == "");
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
