// spirv-val in process: validate a module for the Vulkan 1.2 environment.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vyre::vulkantest {

// Empty when the module is valid, else the validator's messages.
std::string validate_spirv(const std::vector<std::uint32_t>& words);
// The module as text (spirv-dis), for failure messages.
std::string disassemble(const std::vector<std::uint32_t>& words);

}  // namespace vyre::vulkantest
