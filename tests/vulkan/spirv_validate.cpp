#include "spirv_validate.hpp"

#include <cstring>

#include <spirv-tools/libspirv.hpp>
#include <spirv/unified1/GLSL.std.450.h>
#include <spirv/unified1/spirv.hpp11>

namespace vyre::vulkantest {

namespace {

// SPV_KHR_fma (see plugins/vulkan/src/khr_shader_fma.hpp for the source of the numbers).
constexpr std::uint32_t kOpFmaKHR = 4427;
constexpr std::uint32_t kCapabilityFMAKHR = 6030;
constexpr const char* kFmaExtension = "SPV_KHR_fma";

constexpr auto op_word = [](spv::Op op) { return static_cast<std::uint32_t>(op); };

// The literal string starting at words[at] (NUL-terminated within `count` words).
std::string literal(const std::vector<std::uint32_t>& words, std::size_t at, std::size_t end) {
  std::string text;
  for (std::size_t i = at; i < end; ++i)
    for (int b = 0; b < 4; ++b) {
      const char c = static_cast<char>((words[i] >> (8 * b)) & 0xFF);
      if (c == '\0') return text;
      text += c;
    }
  return text;
}

template <class Visit>
void each_instruction(const std::vector<std::uint32_t>& words, Visit&& visit) {
  for (std::size_t i = 5; i < words.size();) {
    const std::uint32_t count = words[i] >> 16;
    if (count == 0 || i + count > words.size()) return;
    visit(i, count, words[i] & 0xFFFF);
    i += count;
  }
}

std::string run_validator(const std::vector<std::uint32_t>& words) {
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

}  // namespace

bool spirv_tools_know_fma() {
  static const bool known = [] {
    spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
    tools.SetMessageConsumer([](spv_message_level_t, const char*, const spv_position_t&, const char*) {});
    std::vector<std::uint32_t> binary;
    return tools.Assemble("OpCapability Shader\nOpCapability FMAKHR\nOpExtension \"SPV_KHR_fma\"\n"
                          "OpMemoryModel Logical GLSL450\n",
                          &binary);
  }();
  return known;
}

std::vector<std::uint32_t> fma_khr_rewritten(const std::vector<std::uint32_t>& words) {
  if (!has_opcode(words, kOpFmaKHR)) return words;
  std::uint32_t glsl = 0;
  each_instruction(words, [&](std::size_t i, std::uint32_t count, std::uint32_t op) {
    if (op == op_word(spv::Op::OpExtInstImport) && literal(words, i + 2, i + count) == "GLSL.std.450") glsl = words[i + 1];
  });
  std::vector<std::uint32_t> out(words.begin(), words.begin() + 5);
  const bool add_import = glsl == 0;
  if (add_import) glsl = out[3]++;  // a fresh id: the old bound
  each_instruction(words, [&](std::size_t i, std::uint32_t count, std::uint32_t op) {
    if (op == op_word(spv::Op::OpCapability) && words[i + 1] == kCapabilityFMAKHR) return;
    if (op == op_word(spv::Op::OpExtension) && literal(words, i + 1, i + count) == kFmaExtension) return;
    if (op == op_word(spv::Op::OpMemoryModel) && add_import) {
      // OpExtInstImport %glsl "GLSL.std.450" goes just before the memory model.
      const char name[16] = "GLSL.std.450";
      out.push_back((6u << 16) | op_word(spv::Op::OpExtInstImport));
      out.push_back(glsl);
      for (int w = 0; w < 4; ++w) {
        std::uint32_t v = 0;
        std::memcpy(&v, name + 4 * w, 4);
        out.push_back(v);
      }
    }
    if (op == kOpFmaKHR && count == 6) {
      out.push_back((8u << 16) | op_word(spv::Op::OpExtInst));
      out.insert(out.end(), {words[i + 1], words[i + 2], glsl, static_cast<std::uint32_t>(GLSLstd450Fma),
                             words[i + 3], words[i + 4], words[i + 5]});
      return;
    }
    out.insert(out.end(), words.begin() + static_cast<std::ptrdiff_t>(i),
               words.begin() + static_cast<std::ptrdiff_t>(i + count));
  });
  return out;
}

std::string validate_spirv(const std::vector<std::uint32_t>& words) {
  if (spirv_tools_know_fma() || !has_opcode(words, kOpFmaKHR)) return run_validator(words);
  // SPIRV-Tools predates SPV_KHR_fma: validate everything else (see the header).
  if (!has_capability(words, kCapabilityFMAKHR) || !has_extension(words, kFmaExtension))
    return "OpFmaKHR without OpCapability FMAKHR and OpExtension \"SPV_KHR_fma\"\n";
  return run_validator(fma_khr_rewritten(words));
}

std::string disassemble(const std::vector<std::uint32_t>& words) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
  std::string text;
  const auto& readable = spirv_tools_know_fma() ? words : fma_khr_rewritten(words);
  if (!tools.Disassemble(readable, &text, SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES)) return "(disassembly failed)";
  return text;
}

bool has_opcode(const std::vector<std::uint32_t>& words, std::uint32_t opcode) {
  bool found = false;
  each_instruction(words, [&](std::size_t, std::uint32_t, std::uint32_t op) { found = found || op == opcode; });
  return found;
}

bool has_capability(const std::vector<std::uint32_t>& words, std::uint32_t capability) {
  bool found = false;
  each_instruction(words, [&](std::size_t i, std::uint32_t, std::uint32_t op) {
    found = found || (op == op_word(spv::Op::OpCapability) && words[i + 1] == capability);
  });
  return found;
}

bool has_extension(const std::vector<std::uint32_t>& words, const std::string& name) {
  bool found = false;
  each_instruction(words, [&](std::size_t i, std::uint32_t count, std::uint32_t op) {
    found = found || (op == op_word(spv::Op::OpExtension) && literal(words, i + 1, i + count) == name);
  });
  return found;
}

bool has_name(const std::vector<std::uint32_t>& words, const std::string& name) {
  bool found = false;
  each_instruction(words, [&](std::size_t i, std::uint32_t count, std::uint32_t op) {
    found = found || (op == op_word(spv::Op::OpName) && literal(words, i + 2, i + count) == name);
  });
  return found;
}

}  // namespace vyre::vulkantest
