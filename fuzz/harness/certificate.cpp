#include "vyre/certificate.hpp"

#include "harness.hpp"
#include "vyre/error.hpp"

namespace vyre::fuzz {

bool certificate(Input bytes) {
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  Certificate cert;
  try {
    cert = certificate_from_json(text);
  } catch (const Error& e) {
    require(e.code() == VYRE_ERR_DECODE, "certificate", "certificate_from_json used another code");
    return false;
  }
  // An accepted certificate is consistent and survives writing and reading.
  require(summarize(cert.ops) == cert.summary, "certificate", "accepted with an inconsistent summary");
  require(certificate_from_json(certificate_to_json(cert)) == cert, "certificate",
          "to_json/from_json does not round-trip");
  (void)certified_ops(cert);
  (void)certificate_file_name(cert);
  return true;
}

}  // namespace vyre::fuzz
