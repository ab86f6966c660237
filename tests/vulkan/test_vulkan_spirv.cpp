// The SPIR-V emitter: every op it lowers, in every program conform uses to test the op, gives a
// module the SPIR-V validator accepts in the Vulkan 1.2 environment, for a device with every
// feature and for one with none, without an instruction whose precision Vulkan leaves open; ops a
// device lacks are refused with VYRE_ERR_UNSUPPORTED.
#include <doctest/doctest.h>

#include <spirv/unified1/GLSL.std.450.h>
#include <spirv/unified1/spirv.hpp11>

#include "codegen/lowering.hpp"
#include "spirv_validate.hpp"
#include "vyre/conform/op_programs.hpp"
#include "vyre/error.hpp"

namespace {

using vyre::vulkan::DeviceFeatures;

// Instructions whose precision Vulkan does not promise (OpFDiv: 2.5 ULP; GLSL.std.450 fma may be
// unfused; sqrt, inversesqrt, exp, log, the trigonometric functions have no or weak bounds), and
// GLSL.std.450 instructions other than the exact integer ones the emitter uses.
std::string imprecise_instruction(const std::vector<std::uint32_t>& words) {
  std::uint32_t glsl_set = 0;
  for (std::size_t i = 5; i < words.size();) {
    const std::uint32_t count = words[i] >> 16;
    const auto op = static_cast<spv::Op>(words[i] & 0xFFFF);
    if (count == 0) return "a zero-length instruction";
    if (op == spv::Op::OpExtInstImport) glsl_set = words[i + 1];
    if (op == spv::Op::OpFDiv || op == spv::Op::OpFRem || op == spv::Op::OpFMod) return "OpFDiv/OpFRem/OpFMod";
    if (op == spv::Op::OpExtInst && words[i + 3] == glsl_set) {
      const std::uint32_t inst = words[i + 4];
      if (inst != GLSLstd450FindUMsb && inst != GLSLstd450FindILsb && inst != GLSLstd450UMin)
        return "GLSL.std.450 instruction " + std::to_string(inst);
    }
    i += count;
  }
  return {};
}

void check_valid(const vyre::Program& program, const DeviceFeatures& features, const std::string& what) {
  const vyre::vulkan::LoweredProgram lowered = vyre::vulkan::lower(program, features);
  CHECK(imprecise_instruction(lowered.spirv) == "");
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
