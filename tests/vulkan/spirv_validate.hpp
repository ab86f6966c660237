// spirv-val in process: validate a module for the Vulkan 1.2 environment.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vyre::vulkantest {

// Empty when the module is valid, else the validator's messages. A module using SPV_KHR_fma is
// validated whole where SPIRV-Tools knows the extension; where it predates it (Debian 12's
// 2023.1), with every OpFmaKHR rewritten to GLSL.std.450 Fma (same result type, result and
// operands) and the FMAKHR capability and extension dropped, so the rest of the module is still
// checked (fma_khr_rewritten()).
std::string validate_spirv(const std::vector<std::uint32_t>& words);
// The module as text (spirv-dis), for failure messages.
std::string disassemble(const std::vector<std::uint32_t>& words);

// Whether this build's SPIRV-Tools knows SPV_KHR_fma (assembles OpFmaKHR).
bool spirv_tools_know_fma();
// The rewrite validate_spirv applies where SPIRV-Tools predates SPV_KHR_fma; `words` unchanged when
// it has no OpFmaKHR.
std::vector<std::uint32_t> fma_khr_rewritten(const std::vector<std::uint32_t>& words);

// Instructions of a module, for tests that look for opcodes.
bool has_opcode(const std::vector<std::uint32_t>& words, std::uint32_t opcode);
bool has_capability(const std::vector<std::uint32_t>& words, std::uint32_t capability);
bool has_extension(const std::vector<std::uint32_t>& words, const std::string& name);
// Whether an OpName names something `name`.
bool has_name(const std::vector<std::uint32_t>& words, const std::string& name);

}  // namespace vyre::vulkantest
