#include "program_checks.hpp"

#include "vyre/error.hpp"
#include "vyre/fingerprint.hpp"
#include "vyre/ops.hpp"
#include "vyre/validate.hpp"
#include "vyre/wire.hpp"

namespace vyre::fuzz {

void check_program(const Program& program, std::string_view harness) {
  const std::vector<Diagnostic> problems = validate(program);
  for (const Diagnostic& d : problems)
    require(d.message.find("Fix:") != std::string::npos, harness,
            "a diagnostic without \"Fix:\": " + printable(d.path + ": " + d.message));
  if (!problems.empty()) return;
  const std::vector<std::uint8_t> wire = encode_wire(program);  // a valid program always encodes
  require(decode_wire(wire) == program, harness, "a valid program does not survive the wire round trip");
  require(fingerprint(program).size() == 64, harness, "the fingerprint is not a SHA-256 hex string");
  for (const std::string& op : ops_used(program))
    require(find_op(op) != nullptr, harness, "ops_used returned an id that is not in the catalog");
}

}  // namespace vyre::fuzz
