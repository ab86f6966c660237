#include "harness.hpp"
#include "program_checks.hpp"
#include "vyre/error.hpp"
#include "vyre/json.hpp"
#include "vyre/validate.hpp"
#include "vyre/wire.hpp"

namespace vyre::fuzz {

bool validator(Input bytes) {
  Program program;
  try {
    if (looks_like_wire(bytes))
      program = decode_wire(bytes);
    else
      program = from_json(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  } catch (const Error&) {
    return false;
  }
  check_program(program, "validate");
  try {
    validate_or_throw(program);
  } catch (const Error& e) {
    require(e.code() == VYRE_ERR_INVALID_PROGRAM, "validate", "validate_or_throw used another code");
    require(!validate(program).empty(), "validate", "validate_or_throw threw for a valid program");
    return false;
  }
  require(validate(program).empty(), "validate", "validate_or_throw accepted an invalid program");
  return true;
}

}  // namespace vyre::fuzz
