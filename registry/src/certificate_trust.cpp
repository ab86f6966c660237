// Signing certificates and deciding which one routing may use (vyre/certificate_trust.hpp).
#include "vyre/certificate_trust.hpp"

#include <array>

#include "hex.hpp"
#include "vyre/ops.hpp"

namespace vyre {

namespace {

constexpr std::string_view kRejectionNames[] = {
#define VYRE_CERT_REJECTION_NAME(code, meaning) #code,
    VYRE_CERTIFICATE_REJECTIONS(VYRE_CERT_REJECTION_NAME)
#undef VYRE_CERT_REJECTION_NAME
};

std::string short_id(std::string_view id) { return std::string(id.substr(0, 16)); }

std::string device_text(const CertDevice& d) {
  return "'" + d.name + "' (" + (d.compute_capability.empty() ? "cpu" : d.compute_capability) + ", driver " +
         std::to_string(d.driver_version) + ")";
}

}  // namespace

std::string_view certificate_rejection_name(CertificateRejection code) {
  return kRejectionNames[static_cast<std::size_t>(code)];
}

void sign_certificate(Certificate& certificate, const SigningKey& key) {
  certificate.signature.reset();
  const auto signature = key.sign(certificate_canonical_bytes(certificate));
  certificate.signature = CertSignature{
      "ed25519", key.public_key().id(),
      registry_detail::hex_encode(std::string_view(reinterpret_cast<const char*>(signature.data()), signature.size()))};
}

std::optional<CertificateProblem> signature_problem(const Certificate& c, const TrustedKeys& trusted) {
  if (!c.signature)
    return CertificateProblem{CertificateRejection::not_signed,
                              "it is not signed. Fix: regenerate it with vyre-conform, which signs"};
  const CertSignature& s = *c.signature;
  const TrustedKey* key = s.algorithm == "ed25519" ? trusted.find(s.key_id) : nullptr;
  if (key == nullptr)
    return CertificateProblem{
        CertificateRejection::untrusted_key,
        "it is signed by key " + short_id(s.key_id) + "... (" + s.algorithm.substr(0, 16) +
            "), which is not in the trusted-keys directory " + trusted.dir.string() +
            ". Fix: if you trust whoever made it, copy their public key (vyre-conform's "
            "certificate-signing.pub.pem) into that directory"};
  const auto bytes = registry_detail::hex_decode(s.value);
  if (!bytes || !verify_signature(key->key, certificate_canonical_bytes(c), *bytes))
    return CertificateProblem{CertificateRejection::bad_signature,
                              "its signature by key " + short_id(s.key_id) + "... (" + key->file.filename().string() +
                                  ") does not verify: it was changed after it was signed, or the signature is "
                                  "damaged. Fix: regenerate it with vyre-conform; never edit a certificate"};
  return std::nullopt;
}

std::optional<CertificateProblem> certificate_mismatch(const Certificate& c, const CertificateSubject& subject) {
  if (c.mode != "differential")
    return CertificateProblem{CertificateRejection::offline_only,
                              "it is an offline (lowering only) certificate. Fix: certify on a device"};
  if (c.plugin_sha256 != subject.plugin_sha256)
    return CertificateProblem{CertificateRejection::other_plugin,
                              "the plugin file changed since it was certified (SHA-256 " + c.plugin_sha256.substr(0, 12) +
                                  "... certified, " + subject.plugin_sha256.substr(0, 12) +
                                  "... loaded). Fix: rerun vyre-conform for this plugin"};
  if (c.device != subject.device)
    return CertificateProblem{CertificateRejection::other_device,
                              "it was made on device " + device_text(c.device) + ", not " +
                                  device_text(subject.device) + ". Fix: rerun vyre-conform on this device"};
  if (c.catalog_hash != catalog_hash())
    return CertificateProblem{CertificateRejection::other_catalog,
                              "it was made against another op catalog. Fix: rerun vyre-conform with this vyre"};
  return std::nullopt;
}

CertificateChoice choose_certificate(const std::filesystem::path& dir, const CertificateSubject& subject,
                                     const TrustedKeys& trusted) {
  CertificateChoice choice;
  for (const auto& l : load_certificates(dir)) {
    if (!l.certificate) {
      choice.rejections.push_back({l.file, CertificateRejection::unreadable, l.error});
      continue;
    }
    if (l.certificate->backend_id != subject.backend_id) continue;
    std::optional<CertificateProblem> problem = signature_problem(*l.certificate, trusted);
    if (!problem) problem = certificate_mismatch(*l.certificate, subject);
    if (problem) {
      choice.rejections.push_back({l.file, problem->code, std::move(problem->reason)});
      continue;
    }
    choice.file = l.file;
    choice.ops = certified_ops(*l.certificate);
    choice.key_id = l.certificate->signature->key_id;
    return choice;
  }
  return choice;
}

}  // namespace vyre
