// Which certificates routing may use (SPEC §9): one signed (Ed25519, over its canonical bytes) by
// a key in the trusted-keys directory, made for the plugin file that was loaded (same SHA-256) on
// this device against this op catalog. Every other certificate is ignored with a coded reason.
//
//   vyre::sign_certificate(cert, vyre::SigningKey::load_or_create(vyre::default_signing_key_file()));
//   auto trusted = vyre::load_trusted_keys(vyre::default_trusted_keys_dir());
//   vyre::CertificateChoice choice = vyre::choose_certificate(dir, subject, trusted);
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vyre/certificate.hpp"
#include "vyre/signing.hpp"

// X(code, meaning): why a certificate is not used for a backend, in the order they are checked.
#define VYRE_CERTIFICATE_REJECTIONS(X)                                                             \
  X(unreadable, "the file is not a well-formed certificate (malformed, damaged, edited, too big)") \
  X(not_signed, "it carries no signature")                                                         \
  X(untrusted_key, "it is signed by a key that is not in the trusted-keys directory")              \
  X(bad_signature, "its signature does not verify: it was changed after signing, or is damaged")   \
  X(offline_only, "it is an offline (lowering only) certificate: nothing ran")                     \
  X(other_plugin, "it certifies another plugin file (its SHA-256 differs from the loaded file's)") \
  X(other_device, "it was made on another device or driver")                                       \
  X(other_catalog, "it was made against another op catalog")

namespace vyre {

enum class CertificateRejection : std::uint8_t {
#define VYRE_CERT_REJECTION_ENUM(code, meaning) code,
  VYRE_CERTIFICATE_REJECTIONS(VYRE_CERT_REJECTION_ENUM)
#undef VYRE_CERT_REJECTION_ENUM
};
std::string_view certificate_rejection_name(CertificateRejection code);  // "untrusted_key", ...

struct CertificateProblem {
  CertificateRejection code;
  std::string reason;  // one line
};

// Sign `certificate` with `key` (sets certificate.signature over its canonical bytes).
void sign_certificate(Certificate& certificate, const SigningKey& key);

// Why `certificate`'s signature is not one to trust (nullopt: signed by a key in `trusted`, and
// the signature verifies over its canonical bytes).
std::optional<CertificateProblem> signature_problem(const Certificate& certificate, const TrustedKeys& trusted);

// What a loaded backend is, for matching certificates against it.
struct CertificateSubject {
  std::string backend_id;
  std::string plugin_sha256;  // of the plugin file the backend was loaded from
  CertDevice device;          // of the instance that will run the programs
};

// Why `certificate` cannot be used for `subject` regardless of its signature (nullopt: it can):
// an offline certificate, another plugin file (SHA-256), another device, another op catalog.
// Another backend id is not a problem it reports: such certificates are simply not subject's.
std::optional<CertificateProblem> certificate_mismatch(const Certificate& certificate,
                                                       const CertificateSubject& subject);

struct RejectedCertificate {
  std::filesystem::path file;
  CertificateRejection code;
  std::string reason;  // one line, ending in a Fix
};

// The certificate in `dir` that routing may use for `subject`: the first (by file name) that
// reads cleanly, is signed by a key in `trusted` and matches. With none, `file` is empty and
// routing should give the backend no ops while certificates are in force (the pinned reference
// oracle excepted). Unreadable files and every certificate of subject's backend that is not used
// are listed with their code.
struct CertificateChoice {
  std::filesystem::path file;  // the accepted certificate; empty when none
  std::vector<std::string> ops;  // its certified (passing) op ids, sorted
  std::string key_id;            // who signed it
  std::vector<RejectedCertificate> rejections;
  bool accepted() const { return !file.empty(); }
};
CertificateChoice choose_certificate(const std::filesystem::path& dir, const CertificateSubject& subject,
                                     const TrustedKeys& trusted);

}  // namespace vyre
