#include "harness.hpp"
#include "program_checks.hpp"
#include "vyre/error.hpp"
#include "vyre/json.hpp"

namespace vyre::fuzz {

bool json_program(Input bytes) {
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  Program program;
  try {
    program = from_json(text);
  } catch (const Error& e) {
    require(e.code() == VYRE_ERR_DECODE, "json", "from_json failed with a code other than DECODE");
    return false;
  }
  // The JSON form round-trips exactly, pretty or compact.
  require(from_json(to_json(program, true)) == program, "json", "pretty to_json does not round-trip");
  require(from_json(to_json(program, false)) == program, "json", "compact to_json does not round-trip");
  check_program(program, "json");
  return true;
}

}  // namespace vyre::fuzz
