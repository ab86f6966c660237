// The program fingerprint: SHA-256 of the canonical wire bytes, so equal programs (and only
// those, up to fields their kinds do not use) share a fingerprint.
#include "vyre/fingerprint.hpp"
#include "vyre/wire.hpp"

namespace vyre {

std::string fingerprint(const Program& program) { return sha256_hex(encode_wire(program)); }

}  // namespace vyre
