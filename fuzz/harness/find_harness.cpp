#include "harness.hpp"

namespace vyre::fuzz {

Harness find_harness(std::string_view name) {
  if (name == "wire") return &wire_decoder;
  if (name == "json") return &json_program;
  if (name == "validate") return &validator;
  if (name == "certificate") return &certificate;
  if (name == "aot_manifest") return &aot_manifest;
  if (name == "dispatch") return &reference_dispatch;
  return nullptr;
}

}  // namespace vyre::fuzz
