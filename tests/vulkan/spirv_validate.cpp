#include "spirv_validate.hpp"

#include <spirv-tools/libspirv.hpp>

namespace vyre::vulkantest {

std::string validate_spirv(const std::vector<std::uint32_t>& words) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& pos, const char* text) {
    messages += "word " + std::to_string(pos.index) + ": " + text + "\n";
  });
  spvtools::ValidatorOptions options;
  options.SetScalarBlockLayout(true);
  if (tools.Validate(words.data(), words.size(), options)) return {};
  return messages.empty() ? "invalid (no message)" : messages;
}

std::string disassemble(const std::vector<std::uint32_t>& words) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
  std::string text;
  if (!tools.Disassemble(words, &text, SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES)) return "(disassembly failed)";
  return text;
}

}  // namespace vyre::vulkantest
