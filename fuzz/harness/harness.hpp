// The fuzz harnesses: one function per input format, shared by the libFuzzer targets
// (fuzz/targets/, built with clang by fuzz/CMakeLists.txt) and by the regression test that
// replays every corpus and crash input with the regular compiler (tests/reliability).
//
// A harness feeds arbitrary bytes through a public API. An input may be rejected only by the
// documented error (vyre::Error, or vyre_launch::LaunchError for AOT manifests); anything else that
// escapes, and every broken invariant (a round trip that does not round-trip), is a finding:
// harnesses throw InvariantViolation for those, which libFuzzer reports as a crash.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "vyre/printable.hpp"

namespace vyre::host {
class Backend;
}

namespace vyre::fuzz {

using Input = std::span<const std::uint8_t>;

class InvariantViolation : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// `text` with control characters escaped, clipped, for readable findings.
inline std::string printable(std::string_view text, std::size_t max = 600) { return vyre::printable(text, max); }

// Throw InvariantViolation("<harness>: <what>") unless `ok`.
inline void require(bool ok, std::string_view harness, std::string_view what) {
  if (!ok) throw InvariantViolation(std::string(harness) + ": " + std::string(what));
}

// Each returns true when the input was accepted, false when it was rejected with the documented
// error. Both are fine; only InvariantViolation (or any other escaping exception, or a crash) is not.
bool wire_decoder(Input bytes);   // decode_wire; accepted: encode/decode round trip
bool json_program(Input bytes);   // from_json; accepted: to_json/from_json round trip (exact)
bool validator(Input bytes);      // wire or JSON, then validate; valid: ops_used, fingerprint, wire round trip
bool certificate(Input bytes);    // certificate_from_json; accepted: to_json/from_json round trip
bool aot_manifest(Input bytes);   // the launcher's parse_manifest + validate_manifest
// A valid program (wire or JSON) compiled on reference_cpu and, when its run is bounded (no loops,
// small buffers and workgroups), dispatched on inputs made of the fuzz bytes. Interpreter UB, a
// crash or VYRE_ERR_INTERNAL is a finding; the run-time errors SPEC defines are not.
bool reference_dispatch(Input bytes);

// The reference backend instance reference_dispatch runs on (one worker thread). Defined by the
// program: the fuzzer links the plugin statically, the tests load it through the registry.
const host::Backend& reference_backend();

// The harness named `name` ("wire", "json", "validate", "certificate", "aot_manifest", "dispatch"),
// or null.
using Harness = bool (*)(Input);
Harness find_harness(std::string_view name);

}  // namespace vyre::fuzz
