// Test helpers that read the emitter's PTX text: its entries, their parameter lists and
// instructions, and merging several modules into one (for batched ptxas runs).
#pragma once

#include <string>
#include <vector>

namespace ptx_test {

struct EntryText {
  std::string name;
  std::vector<std::string> params;        // ".param .u64 p_ptr_0" (trimmed, no comma)
  std::vector<std::string> instructions;  // body lines that are instructions (trimmed)
  std::string text;                       // the whole .entry definition
};

std::vector<EntryText> entries(const std::string& module);

// The instruction's opcode with its modifiers ("@%p1 st.global.b32 [...]" -> "st.global.b32").
std::string opcode(const std::string& instruction);
bool is_predicated(const std::string& instruction);

// One module holding the math definitions (each once) and the entries of every module, entry k of
// module m renamed "m<m>_<name>". The .version is the highest of the modules'.
std::string merge_modules(const std::vector<std::string>& modules);

}  // namespace ptx_test
