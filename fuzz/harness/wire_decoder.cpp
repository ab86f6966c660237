#include "harness.hpp"
#include "program_checks.hpp"
#include "vyre/error.hpp"
#include "vyre/wire.hpp"

namespace vyre::fuzz {

bool wire_decoder(Input bytes) {
  Program program;
  try {
    program = decode_wire(bytes);
  } catch (const Error& e) {
    require(e.code() == VYRE_ERR_DECODE, "wire", "decode_wire failed with a code other than DECODE");
    return false;
  }
  // Whatever decodes re-encodes (the decoder enforces the encoder's limits) to the same program.
  const std::vector<std::uint8_t> again = encode_wire(program);
  require(decode_wire(again) == program, "wire", "encode(decode(x)) does not decode to the same program");
  require(encode_wire(decode_wire(again)) == again, "wire", "the encoding is not canonical");
  check_program(program, "wire");
  return true;
}

}  // namespace vyre::fuzz
